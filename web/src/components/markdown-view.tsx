// Renders Markdown as DOM nodes whose only content is text nodes: the parse tree from
// state/markdown.ts, one memoised component per block so a streaming reply re-renders its tail.
import { memo } from "preact/compat";
import { useRef } from "preact/hooks";
import {
  parseBlock,
  splitBlocksFrom,
  type BlockNode,
  type BlockSplit,
  type InlineNode,
} from "../state/markdown.ts";
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
    case "list": {
      const items = block.items.map((item, index) => <li key={index}>{renderInline(item)}</li>);
      return block.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
    case "quote":
      return <blockquote key={key}>{renderInline(block.children)}</blockquote>;
    case "rule":
      return <hr key={key} />;
    default:
      block satisfies never;
      return null;
  }
}

function renderInline(nodes: InlineNode[]) {
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
