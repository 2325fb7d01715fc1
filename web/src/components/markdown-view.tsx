// Renders Markdown as DOM nodes whose only content is text nodes: the parse tree from the shared
// transcript module (src/protocol/transcript), one memoised component per block so a streaming
// reply re-renders its tail.
import { memo } from "preact/compat";
import { useRef } from "preact/hooks";
import {
  parseBlock,
  splitBlocksFrom,
  type BlockNode,
  type BlockSplit,
  type InlineNode,
  type ListBlock,
  type TableBlock,
} from "../../../src/protocol/transcript/index.ts";
import { CodeBlock } from "./code-block.tsx";

export function MarkdownView({ text }: { text: string }) {
  // While a reply streams, only its last block is split and parsed again each frame.
  const split = useRef<BlockSplit | undefined>(undefined);
  split.current = splitBlocksFrom(split.current, text);
  const blocks = split.current.blocks;
  return (
    <div class="markdown">
      {blocks.map((source, index) => (
        <MarkdownBlock key={index} source={source} />
      ))}
    </div>
  );
}

const MarkdownBlock = memo(function MarkdownBlock({ source }: { source: string }) {
  return <>{parseBlock(source).map((block, index) => renderBlock(block, index))}</>;
});

function renderBlock(block: BlockNode, key: number) {
  switch (block.type) {
    case "paragraph":
      return <p key={key}>{renderInline(block.children)}</p>;
    case "heading": {
      const Tag = `h${Math.min(6, block.level + 2)}` as "h3";
      return <Tag key={key}>{renderInline(block.children)}</Tag>;
    }
    case "code-block":
      return <CodeBlock key={key} code={block.code} language={block.language} />;
    case "list":
      return renderList(block, key);
    case "table":
      return renderTable(block, key);
    case "quote":
      return <blockquote key={key}>{renderInline(block.children)}</blockquote>;
    case "rule":
      return <hr key={key} />;
    default:
      block satisfies never;
      return null;
  }
}

function renderList(list: ListBlock, key: number) {
  const items = list.items.map((item, index) => (
    <li key={index}>
      {renderInline(item.children)}
      {item.sublist === undefined ? null : renderList(item.sublist, 0)}
    </li>
  ));
  return list.ordered ? (
    <ol key={key} start={list.start}>
      {items}
    </ol>
  ) : (
    <ul key={key}>{items}</ul>
  );
}

function renderTable(table: TableBlock, key: number) {
  const align = (column: number) => {
    const alignment = table.alignments[column];
    return alignment === undefined || alignment === "none" ? undefined : { textAlign: alignment };
  };
  return (
    <div key={key} class="table-frame">
      <table>
        <thead>
          <tr>
            {table.header.map((cell, column) => (
              <th key={column} style={align(column)}>
                {renderInline(cell)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((row, index) => (
            <tr key={index}>
              {row.map((cell, column) => (
                <td key={column} style={align(column)}>
                  {renderInline(cell)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function renderInline(nodes: readonly InlineNode[]) {
  return nodes.map((node, index) => {
    switch (node.type) {
      case "text":
        return node.text;
      case "code":
        return <code key={index}>{node.text}</code>;
      case "strong":
        return <strong key={index}>{renderInline(node.children)}</strong>;
      case "emphasis":
        return <em key={index}>{renderInline(node.children)}</em>;
      case "strike":
        return <del key={index}>{renderInline(node.children)}</del>;
      case "link":
        return (
          <a key={index} href={node.href} target="_blank" rel="noopener noreferrer">
            {renderInline(node.children)}
          </a>
        );
      default:
        node satisfies never;
        return null;
    }
  });
}
