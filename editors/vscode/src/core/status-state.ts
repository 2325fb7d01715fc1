// What the status bar knows, and when it forgets it: a server that answers clears the warning
// (also before any completion succeeded), and another server, model or key forgets the previous
// server's model and latency, which no longer describe what answers.

export interface StatusFacts {
  answeringModel: string | undefined;
  latencyMs: number | undefined;
  problem: string | undefined;
}

export class StatusState {
  private facts: StatusFacts = {
    answeringModel: undefined,
    latencyMs: undefined,
    problem: undefined,
  };

  get current(): StatusFacts {
    return this.facts;
  }

  completionAnswered(model: string | undefined, latencyMs: number): void {
    this.facts = {
      answeringModel: model ?? this.facts.answeringModel,
      latencyMs,
      problem: undefined,
    };
  }

  /** The server answered GET /v1/models: it is up; with exactly one model, that one answers. */
  serverAnswered(models: readonly string[]): void {
    const only = models.length === 1 ? models[0] : undefined;
    this.facts = {
      answeringModel: this.facts.answeringModel ?? only,
      latencyMs: this.facts.latencyMs,
      problem: undefined,
    };
  }

  failed(problem: string): void {
    this.facts = { ...this.facts, problem };
  }

  /** Another server URL, model or key. */
  settingsChanged(): void {
    this.facts = { answeringModel: undefined, latencyMs: undefined, problem: undefined };
  }
}
