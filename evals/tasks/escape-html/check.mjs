// Passes when both fields are escaped exactly once (no double escaping of "&").
import assert from "node:assert/strict";
import path from "node:path";
import { pathToFileURL } from "node:url";

const { renderComment } = await import(pathToFileURL(path.resolve("src/render-comment.mjs")).href);
assert.equal(
  renderComment({ author: "Ada", text: "nice" }),
  '<li class="comment"><b>Ada</b>: nice</li>',
);
assert.equal(
  renderComment({ author: "<script>x</script>", text: `Tom & "Jerry" <img src=x onerror='y'>` }),
  '<li class="comment"><b>&lt;script&gt;x&lt;/script&gt;</b>: ' +
    "Tom &amp; &quot;Jerry&quot; &lt;img src=x onerror=&#39;y&#39;&gt;</li>",
);
