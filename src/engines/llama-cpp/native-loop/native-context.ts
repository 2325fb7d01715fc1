// The embedded engine's native decode loop: its own llama.cpp context (and model handle, sharing
// node-llama-cpp's libllama) with a persistent threadpool, a pool of sequences for plain text.
import { SparkError } from "../../../protocol/spark-error.ts";
import { SequencePool } from "../sequence-pool.ts";
import type { AddonContextOptions, GenerationLoopAddon, MapFile } from "./generation-loop-addon.ts";
import { NativeSequence } from "./native-sequence.ts";

export class NativeContext {
  readonly pool: SequencePool<NativeSequence>;
  private disposed = false;

  private constructor(
    private readonly context: InstanceType<GenerationLoopAddon["GenerationContext"]>,
    readonly options: AddonContextOptions,
    /** The addon's mapFile, for the prefix cache's saved states (absent from older builds). */
    readonly mapFile: MapFile | undefined,
  ) {
    let next = 0;
    this.pool = new SequencePool(
      options.sequences,
      () => {
        const sequence = new NativeSequence(context, next, options.contextSize);
        next += 1;
        return sequence;
      },
      {
        cachedLength: (sequence) => sequence.cachedTokens.length,
        sharedPrefixLength: (sequence, tokens) => sequence.sharedPrefixLength(tokens),
      },
    );
  }

  static async create(
    addon: GenerationLoopAddon,
    options: AddonContextOptions,
  ): Promise<NativeContext> {
    const context = new addon.GenerationContext();
    try {
      await context.load(options);
    } catch (error) {
      context.dispose();
      throw new SparkError(
        "model_load_failed",
        `The native generation loop could not load ${options.modelPath}: ${String(error)}`,
        { cause: error },
      );
    }
    // A plain N-API function: it needs no receiver.
    return new NativeContext(context, options, addon.mapFile);
  }

  /** Ends running jobs (their streams end `engine_disposed`) and frees the context and model. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.context.dispose();
  }
}
