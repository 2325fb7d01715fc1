// The router: turns a requested model name (an alias, `auto`, a client's hard-coded name or a
// configured model) plus the request into a decision (route, fallback chain, one-line reason) and
// an Engine that serves the chain with retries, per-upstream circuit breakers and a deadline.
import type { RouterConfig } from "../config/config-types.ts";
import type { Engine, EngineRequest } from "../engines/engine.ts";
import { AutoRules } from "./auto-rules.ts";
import {
  CircuitBreaker,
  DEFAULT_BREAKER_SETTINGS,
  type BreakerSettings,
} from "./circuit-breaker.ts";
import { DEFAULT_AUTO_ROUTE, DEFAULT_AUTO_RULES } from "./default-auto-rules.ts";
import { FallbackEngine, type Upstream } from "./fallback-engine.ts";
import type { ModelRegistry } from "./model-registry.ts";
import { DEFAULT_RETRY_SETTINGS, type RetrySettings } from "./retry-policy.ts";
import { routeSignals } from "./route-signals.ts";
import { AUTO_ROUTE, RouteTable } from "./route-table.ts";
import { RouterMetrics } from "./router-metrics.ts";
import { UpstreamPool } from "./upstream-pool.ts";

export interface RouteDecision {
  /** The name the client sent (undefined: it named none and the default applied). */
  requested: string | undefined;
  /** The alias or model the name came to: "fast", "deep", a configured model. */
  route: string;
  /** Configured models to try in order. */
  chain: string[];
  /** One line for people: why this route. */
  reason: string;
}

export interface RouterOptions {
  registry: ModelRegistry;
  config: RouterConfig;
  /** Injected for tests: jitter and the breakers' clock. */
  random?: () => number;
  now?: () => number;
}

/** Ten minutes: a long local generation fits; a hung upstream does not hold a client forever. */
const DEFAULT_DEADLINE_MS = 600_000;
/** The chain name for "no model configured: let the registry pick its fallback model". */
const REGISTRY_DEFAULT = "default";

export class Router {
  readonly metrics = new RouterMetrics();
  private table: RouteTable;
  private readonly autoRules: AutoRules;
  private readonly retry: RetrySettings;
  private readonly breakerSettings: BreakerSettings;
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly engines = new Map<string, FallbackEngine>();
  /** Pools already handed to the metrics: every request looks its engine up, a pool is new once. */
  private readonly watchedPools = new WeakSet<UpstreamPool>();

  constructor(private readonly options: RouterOptions) {
    const { config, registry } = options;
    this.table = new RouteTable(config, new Set(registry.entries().map((entry) => entry.name)));
    this.autoRules = new AutoRules(
      config.rules ?? DEFAULT_AUTO_RULES,
      config.autoDefault ?? DEFAULT_AUTO_ROUTE,
    );
    this.retry = { ...DEFAULT_RETRY_SETTINGS, ...config.retry };
    this.breakerSettings = { ...DEFAULT_BREAKER_SETTINGS, ...config.breaker };
  }

  /** The registry's model table was replaced (spark serve's SIGHUP): routes name its models now. */
  modelsChanged(): void {
    const { config, registry } = this.options;
    this.table = new RouteTable(config, new Set(registry.entries().map((entry) => entry.name)));
    this.engines.clear();
  }

  get defaultName(): string | undefined {
    return this.options.registry.defaultModelName;
  }

  /** Names a client may ask for beyond the configured models: aliases, `auto`, mapped names. */
  routeNames(): string[] {
    const names = [...this.table.aliases(), ...Object.keys(this.options.config.clientModels)];
    if (this.options.registry.entries().length > 0) names.push(AUTO_ROUTE);
    return [...new Set(names)];
  }

  /** Throws model_not_found (SparkError) for a name that is neither model, alias nor mapped. */
  decide(requested: string | undefined, request: EngineRequest): RouteDecision {
    const named = requested ?? this.defaultName;
    if (named === undefined)
      return {
        requested,
        route: REGISTRY_DEFAULT,
        chain: [REGISTRY_DEFAULT],
        reason: "no model configured: the default model",
      };
    const mapped = this.table.mapClientModel(named);
    const via = mapped === named ? "" : `${named} is mapped to ${mapped}; `;
    let decision: RouteDecision;
    if (mapped === AUTO_ROUTE) {
      const auto = this.autoRules.decide(routeSignals(request));
      decision = {
        requested,
        route: auto.route,
        chain: [],
        reason: `${via}auto → ${auto.route}: ${auto.reason}`,
      };
      try {
        decision.chain = this.table.expand(auto.route);
      } catch {
        // A rule may name a route this config lacks (`deep` with only a fast model): serve the default.
        const fallback =
          this.defaultName === undefined || this.defaultName === AUTO_ROUTE
            ? this.firstModel()
            : this.defaultName;
        decision.chain = this.table.expand(fallback);
        decision.route = fallback;
        decision.reason += ` (${auto.route} is not configured; using ${fallback})`;
      }
    } else {
      const chain = this.table.expand(mapped);
      const kind = this.table.isAlias(mapped)
        ? `route ${mapped} → ${chain.join(" → ")}`
        : `model ${mapped}`;
      const source = requested === undefined ? "the default" : "requested";
      decision = { requested, route: mapped, chain, reason: `${via}${kind} (${source})` };
    }
    this.metrics.countDecision(decision.route, decision.chain[0] ?? "");
    return decision;
  }

  /** The engine serving a decision's chain; one per distinct chain, so breakers are shared. */
  engineFor(decision: RouteDecision): Engine {
    const key = decision.chain.join("\u0000");
    let engine = this.engines.get(key);
    if (engine === undefined) {
      const upstreams = decision.chain.map((name) => this.upstream(name));
      engine = new FallbackEngine(
        upstreams,
        {
          retry: this.retry,
          deadlineMs: this.options.config.deadlineMs ?? DEFAULT_DEADLINE_MS,
          ...(this.options.random === undefined ? {} : { random: this.options.random }),
        },
        this.metrics,
      );
      this.engines.set(key, engine);
    }
    return engine;
  }

  /** Loads the first model a name routes to (an empty request decides `auto`); returns its name. */
  async load(requested: string | undefined): Promise<string> {
    const decision = this.decide(requested, { messages: [] });
    const [first = REGISTRY_DEFAULT] = decision.chain;
    await this.upstream(first).engine();
    return first;
  }

  breakerState(model: string): string | undefined {
    return this.breakers.get(model)?.state;
  }

  private upstream(name: string): Upstream {
    const registry = this.options.registry;
    return {
      name,
      engine: async () => {
        const { engine } = await registry.engineFor(
          name === REGISTRY_DEFAULT && registry.entries().length === 0 ? undefined : name,
        );
        if (engine instanceof UpstreamPool && !this.watchedPools.has(engine)) {
          this.watchedPools.add(engine);
          this.metrics.watchPool(name, () => engine.replicaStates());
        }
        return engine;
      },
      breaker: this.breaker(name),
    };
  }

  private breaker(name: string): CircuitBreaker {
    let breaker = this.breakers.get(name);
    if (breaker === undefined) {
      const created = new CircuitBreaker(this.breakerSettings, this.options.now, (state) =>
        this.metrics.countBreakerTransition(name, state),
      );
      this.metrics.watchBreaker(name, () => created.state);
      this.breakers.set(name, created);
      breaker = created;
    }
    return breaker;
  }

  private firstModel(): string {
    return this.options.registry.entries()[0]?.name ?? REGISTRY_DEFAULT;
  }
}
