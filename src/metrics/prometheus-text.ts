// Prometheus text exposition pieces shared by the gateway's and the router's /metrics: labelled
// counters, gauges and label formatting.

export type Labels = Record<string, string>;

export class Counter {
  private readonly values = new Map<string, number>();

  constructor(
    private readonly name: string,
    private readonly help: string,
  ) {}

  add(labels: Labels, amount = 1): void {
    const key = formatLabels(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + amount);
  }

  render(): string {
    let text = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} counter\n`;
    for (const [labels, value] of this.values) text += `${this.name}${labels} ${value}\n`;
    return text;
  }
}

export function gauge(name: string, help: string, value: number): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${value}\n`;
}

export function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return "";
  const escape = (value: string): string =>
    value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
  return `{${entries.map(([key, value]) => `${key}="${escape(value)}"`).join(",")}}`;
}
