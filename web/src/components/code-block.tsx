// A fenced code block with highlighting: each token is a text node in a span.
import { memo } from "preact/compat";
import { highlightCode } from "../state/highlight.ts";

export const CodeBlock = memo(function CodeBlock({
  code,
  language,
}: {
  code: string;
  language: string;
}) {
  const tokens = highlightCode(code, language);
  return (
    <pre class="code-block" data-language={language || undefined}>
      {language === "" ? null : <span class="code-language">{language}</span>}
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
  );
});
