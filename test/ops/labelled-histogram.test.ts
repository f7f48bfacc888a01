import { Histogram, Registry } from "prom-client";
import { LabelledHistogram } from "../../src/http/labelled-histogram";

// The request metrics' histograms (src/http/labelled-histogram.ts) must scrape as prom-client's
// Histogram would: the same text and the same JSON for the same observations, whatever the label
// sets, their order and the values (on a bound, between bounds, above every bound).

const BUCKETS = [0, 1, 2.5, 10];
const OBSERVATIONS: [Record<string, string>, number][] = [
  [{ endpoint: "/reg/api2/users/", action: "get_info" }, 0],
  [{ endpoint: "/graphql", action: "users" }, 1],
  [{ endpoint: "/reg/api2/users/", action: "get_info" }, 2.5],
  [{ endpoint: "/reg/api2/users/", action: "get_info" }, 0.0004],
  [{ endpoint: "/graphql", action: "users" }, 11],
  [{ endpoint: "other", action: "none" }, 3.75],
];

function bothFed(): { ours: Registry; theirs: Registry; histogram: LabelledHistogram } {
  const ours = new Registry();
  const theirs = new Registry();
  const histogram = new LabelledHistogram("regapi_probe_seconds", "A probe.", BUCKETS, ours);
  const reference = new Histogram({
    name: "regapi_probe_seconds",
    help: "A probe.",
    labelNames: ["endpoint", "action"],
    buckets: BUCKETS,
    registers: [theirs],
  });
  for (const [labels, value] of OBSERVATIONS) {
    histogram.observe(`${labels.endpoint} ${labels.action}`, () => ({ ...labels }), value);
    reference.observe(labels, value);
  }
  return { ours, theirs, histogram };
}

describe("LabelledHistogram against prom-client's Histogram", () => {
  it("scrapes to the same text", async () => {
    const { ours, theirs } = bothFed();
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('regapi_probe_seconds_bucket{le="+Inf",endpoint="/graphql",action="users"} 2');
  });

  it("gives the same JSON", async () => {
    const { ours, theirs } = bothFed();
    expect(JSON.parse(JSON.stringify(await ours.getMetricsAsJSON()))).toEqual(
      JSON.parse(JSON.stringify(await theirs.getMetricsAsJSON())),
    );
  });

  it("holds nothing after a reset, as the registry's resetMetrics does", async () => {
    const { ours, histogram } = bothFed();
    ours.resetMetrics();
    expect(await ours.metrics()).toBe("# HELP regapi_probe_seconds A probe.\n# TYPE regapi_probe_seconds histogram\n");
    histogram.observe("x", () => ({ endpoint: "x", action: "y" }), 1);
    expect(await ours.metrics()).toContain('regapi_probe_seconds_count{endpoint="x",action="y"} 1');
  });
});
