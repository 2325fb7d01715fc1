// A unified diff, one line per row, coloured by its first character.
export function DiffView({ diff }: { diff: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  return (
    <pre class="diff">
      {lines.map((line, index) => (
        <div key={index} class={`diff-line ${diffLineClass(line)}`}>
          {line === "" ? " " : line}
        </div>
      ))}
    </pre>
  );
}

function diffLineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "diff-file";
  if (line.startsWith("@@")) return "diff-hunk";
  if (line.startsWith("+")) return "diff-added";
  if (line.startsWith("-")) return "diff-removed";
  return "diff-context";
}
