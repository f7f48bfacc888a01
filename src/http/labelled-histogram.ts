import type { Registry } from "prom-client";

// A histogram observed on every request, by a label set the caller names by a key of its own.
// prom-client's Histogram builds a labels object, validates it and hashes it into a string on
// every observation; here a request looks its label set up by the key it already has (one Map
// lookup) and the labels object is made once per label set. At scrape time it renders exactly
// what prom-client's Histogram renders for the same observations (labelled-histogram.test.ts holds
// the two to the same text): it is registered as a metric of the registry and answers its
// `get`/`getForPromString` in the same shape.

interface Series {
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket (not cumulative), by upper bound's index; the last: above every bound. */
  readonly counts: number[];
  sum: number;
  count: number;
}

interface MetricValue {
  labels: Record<string, string | number>;
  sharedLabels?: Readonly<Record<string, string>>;
  value: number;
  metricName: string;
  exemplar?: null;
}

export class LabelledHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  private series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as unknown as Parameters<Registry["registerMetric"]>[0]);
  }

  /** Observes `value` for the label set named `key`; `labels` is called only the first time the key is seen. */
  observe(key: string, labels: () => Record<string, string>, value: number): void {
    let series = this.series.get(key);
    if (series === undefined) {
      series = { labels: labels(), counts: new Array<number>(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    let bucket = 0;
    while (bucket < this.buckets.length && value > this.buckets[bucket]) bucket++;
    series.counts[bucket] += 1;
    series.sum += value;
    series.count += 1;
  }

  reset(): void {
    this.series = new Map();
  }

  /** As prom-client's Histogram: buckets (cumulative, `le` first), +Inf, sum and count per label set. */
  getForPromString() {
    const values: MetricValue[] = [];
    const bucketName = `${this.name}_bucket`;
    for (const series of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += series.counts[i];
        values.push({
          labels: { le: bound },
          sharedLabels: series.labels,
          value: cumulative,
          metricName: bucketName,
          exemplar: null,
        });
      });
      values.push({
        labels: { le: "+Inf" },
        sharedLabels: series.labels,
        value: series.count,
        metricName: bucketName,
        exemplar: null,
      });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The JSON form: each value's labels with its label set's. */
  get() {
    const metric = this.getForPromString();
    return {
      ...metric,
      values: metric.values.map(({ sharedLabels, labels, ...value }) => ({
        ...value,
        labels: { ...labels, ...sharedLabels },
      })),
    };
  }
}
