import { describe, expect, it } from "vitest";
import { FailureNotices } from "./failure-notices.ts";

describe("FailureNotices", () => {
  it("notifies once per cause and URL, and again after that URL recovered", () => {
    const notices = new FailureNotices();
    expect(notices.shouldNotify("server_unreachable", "http://a")).toBe(true);
    expect(notices.shouldNotify("server_unreachable", "http://a")).toBe(false);
    // An earlier outage on another URL does not use up this one's notice.
    expect(notices.shouldNotify("server_unreachable", "http://b")).toBe(true);
    expect(notices.shouldNotify("unauthorized", "http://a")).toBe(true);
    notices.recovered("http://a");
    expect(notices.shouldNotify("server_unreachable", "http://a")).toBe(true);
    expect(notices.shouldNotify("server_unreachable", "http://b")).toBe(false);
  });
});
