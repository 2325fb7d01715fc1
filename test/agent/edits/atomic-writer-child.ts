// Child process for the crash-safety test: rewrites one file with writeFileAtomic in a tight loop,
// alternating two contents, until the parent SIGKILLs it. With "hold-before-rename" it stops
// inside its first write, after the temp file is synced and before the rename, and says "staged";
// with "exit-before-rename" it calls process.exit there instead (a second Ctrl-C mid-edit).
import { writeFileAtomic } from "../../../src/agent/edits/write-file-atomic.ts";

const [target, sizeText, mode] = process.argv.slice(2);
if (target === undefined || sizeText === undefined)
  throw new Error("usage: <target> <size> [mode]");
const size = Number(sizeText);
const contents = [Buffer.alloc(size, "B"), Buffer.alloc(size, "A")];

const holdBeforeRename = async () => {
  process.stdout.write("staged\n");
  await new Promise((resolve) => setTimeout(resolve, 60_000));
};

const exitBeforeRename = () => process.exit(3);

for (let round = 0; ; round += 1) {
  await writeFileAtomic(target, contents[round % 2] ?? Buffer.alloc(0), {
    ...(mode === "hold-before-rename" ? { beforeRename: holdBeforeRename } : {}),
    ...(mode === "exit-before-rename" ? { beforeRename: exitBeforeRename } : {}),
  });
  process.stdout.write(`wrote ${round}\n`);
}
