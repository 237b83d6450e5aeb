// Types for parse-prometheus-text-format 1.1 (the package ships none). Values stay strings,
// as the parser returns them ("+Inf", "1.5e3").
declare module "parse-prometheus-text-format" {
  /** One sample of a counter, gauge or untyped family. */
  export interface PrometheusSample {
    value: string;
    labels?: Record<string, string>;
  }
  /** One series of a summary family. */
  export interface PrometheusSummarySample {
    labels?: Record<string, string>;
    quantiles?: Record<string, string>;
    count: string;
    sum: string;
  }
  /** One series of a histogram family. */
  export interface PrometheusHistogramSample {
    labels?: Record<string, string>;
    buckets: Record<string, string>;
    count: string;
    sum: string;
  }
  /** A metric family as parsed. */
  export interface PrometheusFamily {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "SUMMARY" | "HISTOGRAM" | "UNTYPED";
    metrics: (PrometheusSample | PrometheusSummarySample | PrometheusHistogramSample)[];
  }
  /** Parses Prometheus text exposition format. Throws on malformed input. */
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[];
}
