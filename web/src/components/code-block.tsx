// A fenced code block with highlighting (each token is a text node in a span) and a Copy button
// that copies the code exactly as written.
import { memo } from "preact/compat";
import { highlightCode } from "../../../src/protocol/transcript/index.ts";
import { useCopyText } from "./use-copy-text.ts";

export const CodeBlock = memo(function CodeBlock({
  code,
  language,
}: {
  code: string;
  language: string;
}) {
  const tokens = highlightCode(code, language);
  const { copied, copy } = useCopyText();
  return (
    <div class="code-frame">
      <div class="code-bar">
        {language === "" ? null : <span class="code-language">{language}</span>}
        <button type="button" class="copy-button" aria-label="Copy code" onClick={() => copy(code)}>
          {copied === "copied" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy"}
        </button>
      </div>
      <pre class="code-block" data-language={language || undefined}>
        <code>
          {tokens.map((token, index) =>
            token.kind === "plain" ? (
              token.text
            ) : (
              <span key={index} class={`token-${token.kind}`}>
                {token.text}
              </span>
            ),
          )}
        </code>
      </pre>
    </div>
  );
});
