import { describe, expect, test } from "bun:test";
import { Registry } from "prom-client";
import { RequestSeries } from "./metrics.ts";

describe("RequestSeries", () => {
  test("renders a counter and cumulative histogram buckets per method, route and status", async () => {
    const registry = new Registry();
    const series = new RequestSeries([0.01, 0.1]);
    series.register(registry, { counter: ["req_total", "Requests."], histogram: ["req_seconds", "Seconds."] });
    series.observe("GET", "/a", 200, 0.005);
    series.observe("GET", "/a", 200, 0.05);
    series.observe("GET", "/a", 200, 5);
    series.observe("POST", "/a", 422, 0.01);
    const text = await registry.metrics();
    expect(text).toContain("# TYPE req_total counter");
    expect(text).toContain('req_total{method="GET",route="/a",status="200"} 3');
    expect(text).toContain('req_total{method="POST",route="/a",status="422"} 1');
    expect(text).toContain("# TYPE req_seconds histogram");
    expect(text).toContain('req_seconds_bucket{method="GET",route="/a",status="200",le="0.01"} 1');
    expect(text).toContain('req_seconds_bucket{method="GET",route="/a",status="200",le="0.1"} 2');
    expect(text).toContain('req_seconds_bucket{method="GET",route="/a",status="200",le="+Inf"} 3');
    expect(text).toContain('req_seconds_count{method="GET",route="/a",status="200"} 3');
    // A value on a bound falls in that bucket (le: less than or equal).
    expect(text).toContain('req_seconds_bucket{method="POST",route="/a",status="422",le="0.01"} 1');
    expect(text).toMatch(/req_seconds_sum\{method="GET",route="\/a",status="200"\} 5\.055/);
  });
});
