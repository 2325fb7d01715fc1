// One line of an answer, as Markdown: headings, list items, quotes and rules by their line, inline
// `code`, **bold**, *italic* and links within it, and lines of fenced code highlighted (the fences
// themselves are not shown, so code copies out as it is).
import { Box, Text } from "ink";
import { highlightCodeLine, type CodeTokenKind } from "../state/highlight-code.ts";
import { classifyMarkdownLine, parseInline, type InlineSpan } from "../state/markdown.ts";
import type { AssistantLine } from "../state/transcript-item.ts";

const CODE_COLORS: Record<CodeTokenKind, string | undefined> = {
  plain: undefined,
  keyword: "magenta",
  string: "green",
  number: "yellow",
  comment: "gray",
};

export function AnswerLineView({ line }: { line: AssistantLine }) {
  const blankLines = line.blankLinesBefore ?? 0;
  if (blankLines === 0) return <AnswerLineBody line={line} />;
  return (
    <Box flexDirection="column" marginTop={blankLines}>
      <AnswerLineBody line={line} />
    </Box>
  );
}

function AnswerLineBody({ line }: { line: AssistantLine }) {
  const prefix = line.continued ? "" : "● ";
  const stopped = line.interrupted ? <Text color="yellow"> ⏹</Text> : null;
  if (line.block === "fence") {
    // A fence is markup; only an answer's first line or its interrupt mark needs the row.
    return line.continued && !line.interrupted ? null : (
      <Text>
        {prefix.trimEnd()}
        {stopped}
      </Text>
    );
  }
  if (line.block === "code") {
    return (
      <Text>
        {prefix}
        {line.text === "" ? " " : null}
        {highlightCodeLine(line.text, line.code?.language ?? "").map((token, index) => (
          <Text key={index} color={CODE_COLORS[token.kind]}>
            {token.text}
          </Text>
        ))}
        {stopped}
      </Text>
    );
  }
  return (
    <Text>
      {prefix}
      <ProseLine text={line.text} wholeLine={line.restOfLine !== true} />
      {stopped}
    </Text>
  );
}

function ProseLine({ text, wholeLine }: { text: string; wholeLine: boolean }) {
  // An empty line of an answer still takes its row.
  if (text === "") return <Text> </Text>;
  const markdown = wholeLine ? classifyMarkdownLine(text) : { kind: "paragraph" as const, text };
  switch (markdown.kind) {
    case "heading":
      // Each level its own look (the marks are gone): # underlined cyan, ## cyan, ### plain bold,
      // deeper ones dim; before, # and ## and ### differed only by an underline.
      return (
        <Text
          bold
          underline={markdown.level === 1}
          color={markdown.level <= 2 ? "cyan" : undefined}
          dimColor={markdown.level >= 4}
        >
          <InlineSpans spans={parseInline(markdown.text)} />
        </Text>
      );
    case "list-item":
      return (
        <Text>
          {markdown.indent}
          <Text color="cyan">{markdown.marker}</Text>{" "}
          <InlineSpans spans={parseInline(markdown.text)} />
        </Text>
      );
    case "quote":
      return (
        <Text dimColor>
          │ <InlineSpans spans={parseInline(markdown.text)} />
        </Text>
      );
    case "rule":
      return <Text dimColor>{"─".repeat(24)}</Text>;
    case "paragraph":
      return <InlineSpans spans={parseInline(markdown.text)} />;
    default:
      markdown satisfies never;
      return null;
  }
}

function InlineSpans({ spans }: { spans: InlineSpan[] }) {
  return (
    <>
      {spans.map((span, index) => {
        switch (span.style) {
          case "code":
            return (
              <Text key={index} color="cyan">
                {span.text}
              </Text>
            );
          case "bold":
            return (
              <Text key={index} bold>
                {span.text}
              </Text>
            );
          case "italic":
            return (
              <Text key={index} italic>
                {span.text}
              </Text>
            );
          case "strike":
            return (
              <Text key={index} strikethrough>
                {span.text}
              </Text>
            );
          case "link":
            return (
              <Text key={index} color="blue" underline>
                {span.text}
              </Text>
            );
          default:
            return <Text key={index}>{span.text}</Text>;
        }
      })}
    </>
  );
}
