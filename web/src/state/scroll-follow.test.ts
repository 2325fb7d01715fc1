import { describe, expect, it } from "vitest";
import { followAfterScroll, type FollowState } from "./scroll-follow.ts";

const at = (scrollTop: number, scrollHeight: number) => ({
  scrollTop,
  scrollHeight,
  clientHeight: 600,
});

describe("following the stream", () => {
  it("keeps following when content grew under a scroll event the page caused", () => {
    // The page scrolled to the end at 3615; a burst of replayed events then grew the content
    // to 8599 px before the browser delivered that scroll event.
    const state: FollowState = { following: true, lastTop: 3615 };
    expect(followAfterScroll(state, at(3615, 8599))).toEqual({ following: true, lastTop: 3615 });
  });

  it("stops when the user scrolls up, and follows again once they are back at the end", () => {
    let state: FollowState = { following: true, lastTop: 3615 };
    state = followAfterScroll(state, at(3000, 4215));
    expect(state.following).toBe(false);
    // More output arrives: still not following, wherever the user is.
    state = followAfterScroll(state, at(3100, 6000));
    expect(state.following).toBe(false);
    state = followAfterScroll(state, at(5390, 6000));
    expect(state.following).toBe(true);
  });

  it("keeps following when shrinking content clamps the position", () => {
    const state: FollowState = { following: true, lastTop: 5000 };
    expect(followAfterScroll(state, at(4000, 4600)).following).toBe(true);
  });
});
