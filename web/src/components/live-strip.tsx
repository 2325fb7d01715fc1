// The live numbers for the open session: model, time to first token, tokens/s, context, cache.
import { formatTokens } from "../../../src/protocol/transcript/index.ts";
import { formatMilliseconds, type LiveStats } from "../state/live-stats.ts";

export function LiveStrip({
  model,
  stats,
  status,
}: {
  model: string | undefined;
  stats: LiveStats;
  status: string;
}) {
  const context =
    stats.contextUsedTokens === undefined
      ? "–"
      : `${formatTokens(stats.contextUsedTokens)} / ${formatTokens(stats.contextWindowTokens)}`;
  return (
    <dl class="live-strip" aria-label="Live statistics" data-testid="live-strip">
      <Stat label="model" value={model ?? "–"} />
      <Stat label="status" value={status} />
      <Stat label="first token" value={formatMilliseconds(stats.timeToFirstTokenMs)} />
      <Stat
        label="tokens/s"
        value={stats.tokensPerSecond === undefined ? "–" : stats.tokensPerSecond.toFixed(0)}
      />
      <Stat label="context" value={context} />
      <Stat label="cached" value={formatTokens(stats.cachedTokens)} />
    </dl>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div class="stat">
      <dt>{label}</dt>
      <dd title={value}>{value}</dd>
    </div>
  );
}
