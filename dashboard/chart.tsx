/** A uPlot chart that follows its container's width, with a text summary for screen readers. */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";

export interface ChartProps {
  title: string;
  /** Column data: x values first, then one array per series. */
  data: uPlot.AlignedData;
  series: { label: string; color: string; bars?: boolean }[];
  xTime?: boolean;
  xLabel: string;
  yLabel: string;
  summary: string;
  height?: number;
}

export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(240, el.clientWidth);
    const opts: uPlot.Options = {
      width: width(),
      height: props.height ?? 220,
      // Bars sit on whole days: half a day of room each side keeps the first and last bar visible.
      scales: {
        x: {
          time: !!props.xTime,
          // A single day gets the same room around it (uPlot stretches a lone time value over a thousand days).
          ...(props.series.some((s) => s.bars) || (props.xTime && props.data[0].length === 1)
            ? {
                range: (_u: uPlot, min: number, max: number) =>
                  (props.data[0].length === 1 ? [props.data[0][0]! - 43_200, props.data[0][0]! + 43_200] : [min - 43_200, max + 43_200]) as uPlot.Range.MinMax,
              }
            : {}),
        },
        y: { range: (_u, min, max) => [Math.min(0, min), Math.max(1, max)] },
      },
      axes: [
        { label: props.xLabel, stroke: "#374151", grid: { stroke: "#e5e7eb" } },
        { label: props.yLabel, stroke: "#374151", grid: { stroke: "#e5e7eb" } },
      ],
      legend: { show: props.series.length > 1 },
      series: [
        { label: props.xLabel },
        ...props.series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 2,
          fill: s.color + "33",
          ...(s.bars ? { paths: uPlot.paths.bars!({ size: [0.6, 40] }), points: { show: false } } : {}),
        })),
      ],
    };
    const plot = new uPlot(opts, props.data, el);
    const ro = new ResizeObserver(() => plot.setSize({ width: width(), height: props.height ?? 220 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [props.data]);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={box} role="img" aria-label={`${props.title}. ${props.summary}`} />
    </figure>
  );
}
