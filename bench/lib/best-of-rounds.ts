// Best of interleaved rounds, each figure on its own: on a shared machine noise only ever slows a
// run or adds CPU, so the highest tokens/s and the lowest CPU per token are the truest.

export interface DecodeSample {
  tokensPerSecond: number;
  cpuMicrosecondsPerToken: number;
}

export function keepBest<Sample extends DecodeSample>(
  best: Map<string, Sample>,
  key: string,
  sample: Sample,
): void {
  const previous = best.get(key);
  best.set(key, {
    ...sample,
    tokensPerSecond: Math.max(previous?.tokensPerSecond ?? 0, sample.tokensPerSecond),
    cpuMicrosecondsPerToken: Math.min(
      previous?.cpuMicrosecondsPerToken ?? Infinity,
      sample.cpuMicrosecondsPerToken,
    ),
  });
}
