// The transcript: finished items in Ink's <Static> (written once, never re-rendered) and the one
// live item below them, the only part that changes while a turn streams.
import { Box, Static } from "ink";
import type { TranscriptItem } from "../state/transcript-item.ts";
import { TranscriptItemView } from "./transcript-item-view.tsx";
import { unwrappedWidth } from "./unwrapped-width.ts";

export interface TranscriptViewProps {
  finished: TranscriptItem[];
  live: TranscriptItem | undefined;
  /** Bumped by /clear and by switching sessions: a new <Static> starts from the given items. */
  generation: number;
  /** The terminal's width: what Ink wraps at, where it wraps at all (unwrapped-width.ts). */
  columns: number;
}

export function TranscriptView({ finished, live, generation, columns }: TranscriptViewProps) {
  return (
    <>
      <Static key={generation} items={finished}>
        {(item) => (
          <Box key={item.id} width={unwrappedWidth(item, columns)}>
            <TranscriptItemView item={item} />
          </Box>
        )}
      </Static>
      {live === undefined ? null : <TranscriptItemView item={live} />}
    </>
  );
}
