// One line of an answer, as Markdown read by the shared reader (src/protocol/transcript, which the
// browser and the editor render too): headings, list items (nested by their indent), quotes and
// rules by their line, inline `code`, **bold**, *italic*, ~~strike~~ and links within it, a table
// as aligned columns, and lines of fenced code highlighted (the fences themselves are not shown,
// so code copies out as it is).
import { Box, Text } from "ink";
import {
  highlightCode,
  inlineText,
  parseInline,
  readMarkdownLine,
  type CodeTokenKind,
  type InlineNode,
} from "../../protocol/transcript/index.ts";
import { CELL_GAP, cellPadding, dividerLine, layoutTable } from "../state/answer-table.ts";
import type { AssistantLine } from "../state/transcript-item.ts";
import { displayWidth } from "../state/terminal-text.ts";

const CODE_COLORS: Record<CodeTokenKind, string | undefined> = {
  plain: undefined,
  keyword: "magenta",
  string: "green",
  number: "yellow",
  comment: "gray",
};

export function AnswerLineView({ line }: { line: AssistantLine }) {
  const { heldTable } = line;
  const body = <WithBlankLines line={line} />;
  if (heldTable === undefined) return body;
  // The live line under the table rows it holds: both are drawn, the table first.
  return (
    <Box flexDirection="column">
      <WithBlankLines line={heldTable} />
      {line.text === "" && !line.interrupted ? null : body}
    </Box>
  );
}

function WithBlankLines({ line }: { line: AssistantLine }) {
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
  switch (line.block) {
    case "fence":
      // A fence is markup; only an answer's first line or its interrupt mark needs the row.
      return line.continued && !line.interrupted ? null : (
        <Text>
          {prefix.trimEnd()}
          {stopped}
        </Text>
      );
    case "code":
      return (
        <Text>
          {prefix}
          {line.text === "" ? " " : null}
          {highlightCode(line.text, line.code?.language ?? "").map((token, index) => (
            <Text key={index} color={CODE_COLORS[token.kind]}>
              {token.text}
            </Text>
          ))}
          {stopped}
        </Text>
      );
    case "table":
      return (
        <Box>
          <Text>{prefix}</Text>
          <TableView text={line.text} />
          {stopped}
        </Box>
      );
    default:
      return (
        <Text>
          {prefix}
          <ProseLine text={line.text} wholeLine={line.restOfLine !== true} />
          {stopped}
        </Text>
      );
  }
}

function ProseLine({ text, wholeLine }: { text: string; wholeLine: boolean }) {
  // An empty line of an answer still takes its row.
  if (text === "") return <Text> </Text>;
  const markdown = wholeLine ? readMarkdownLine(text) : { kind: "paragraph" as const, text };
  switch (markdown.kind) {
    case "heading":
      // Each level its own look (the marks are gone): # underlined cyan, ## cyan, ### plain bold,
      // deeper ones dim.
      return (
        <Text
          bold
          underline={markdown.level === 1}
          color={markdown.level <= 2 ? "cyan" : undefined}
          dimColor={markdown.level >= 4}
        >
          <InlineNodes nodes={parseInline(markdown.text)} />
        </Text>
      );
    case "list-item":
      // Nested items keep their indent: the tree the browser draws as a list inside an item.
      return (
        <Text>
          {" ".repeat(markdown.indent)}
          <Text color="cyan">{markdown.ordered ? markdown.marker : "•"}</Text>{" "}
          <InlineNodes nodes={parseInline(markdown.text)} />
        </Text>
      );
    case "quote":
      return (
        <Text dimColor>
          │ <InlineNodes nodes={parseInline(markdown.text)} />
        </Text>
      );
    case "rule":
      return <Text dimColor>{"─".repeat(24)}</Text>;
    case "paragraph":
      return <InlineNodes nodes={parseInline(markdown.text)} />;
    default:
      // A lone table line (a table is finished whole) or a blank one: the text as written.
      return <Text>{text}</Text>;
  }
}

/** A table's rows in aligned columns, the header bold over a rule; lines that are no table as prose. */
function TableView({ text }: { text: string }) {
  const layout = layoutTable(text);
  if (layout === undefined) {
    return (
      <Box flexDirection="column">
        {text.split("\n").map((row, index) => (
          <ProseLine key={index} text={row} wholeLine />
        ))}
      </Box>
    );
  }
  const { table, widths } = layout;
  const row = (cells: readonly InlineNode[][], header: boolean, key: number) => (
    <Text key={key} bold={header}>
      {cells.map((cell, column) => {
        const { before, after } = cellPadding(
          displayWidth(inlineText(cell)),
          widths[column] ?? 0,
          table.alignments[column] ?? "none",
        );
        return (
          <Text key={column}>
            {column === 0 ? "" : <Text dimColor>{CELL_GAP}</Text>}
            {before}
            <InlineNodes nodes={cell} />
            {after}
          </Text>
        );
      })}
    </Text>
  );
  return (
    <Box flexDirection="column">
      {row(table.header, true, -1)}
      <Text dimColor>{dividerLine(widths)}</Text>
      {table.rows.map((cells, index) => row(cells, false, index))}
    </Box>
  );
}

function InlineNodes({ nodes }: { nodes: readonly InlineNode[] }) {
  return (
    <>
      {nodes.map((node, index) => {
        switch (node.type) {
          case "text":
            return <Text key={index}>{node.text}</Text>;
          case "code":
            return (
              <Text key={index} color="cyan">
                {node.text}
              </Text>
            );
          case "strong":
            return (
              <Text key={index} bold>
                <InlineNodes nodes={node.children} />
              </Text>
            );
          case "emphasis":
            return (
              <Text key={index} italic>
                <InlineNodes nodes={node.children} />
              </Text>
            );
          case "strike":
            return (
              <Text key={index} strikethrough>
                <InlineNodes nodes={node.children} />
              </Text>
            );
          case "link":
            return <LinkText key={index} href={node.href} nodes={node.children} />;
          default:
            node satisfies never;
            return null;
        }
      })}
    </>
  );
}

/** A link's label, and its address after it unless the label is the address. */
function LinkText({ href, nodes }: { href: string; nodes: readonly InlineNode[] }) {
  const label = inlineText(nodes);
  const labelIsAddress = label === href;
  return (
    <Text color="blue" underline>
      <InlineNodes nodes={nodes} />
      {labelIsAddress ? "" : ` (${href})`}
    </Text>
  );
}
