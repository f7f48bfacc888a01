// The few members of autocannon's API the benchmark uses (the package ships no types).
declare module "autocannon" {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    /** Requests to send in all, instead of a duration. */
    amount?: number;
    /** Milliseconds between samples; a run given an `amount` ends on the sample after it. */
    sampleInt?: number;
    /** Requests sent in turn on each connection, or per-request changes (a header that differs on every request). */
    requests?: {
      method?: string;
      path?: string;
      body?: string;
      setupRequest?(request: RequestParams): RequestParams;
    }[];
  }
  interface RequestParams {
    headers?: Record<string, string>;
    [member: string]: unknown;
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
    /** Seconds the run took. */
    duration: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
