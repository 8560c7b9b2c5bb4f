/** A video's funnel on its analytics page: a bar per step, with the drop from the step before (dashboard/funnel.ts). */
import { call, qs } from "../api.ts";
import { BarCell, ErrorBox, DataTable, useAsync } from "../components.tsx";
import { funnelSteps } from "../funnel.ts";
import { num, pct } from "../seller-format.ts";
import type { Retention, SellerOverview } from "../../contract/api.ts";

export function Funnel({ id, from, to, n }: { id: number; from: string; to: string; n: number }) {
  const steps = useAsync(
    async (signal) => {
      const [o, r] = await Promise.all([
        call<SellerOverview>("GET", `/videos/${id}/analytics/overview${qs({ from, to })}`, { signal }),
        call<Retention>("GET", `/videos/${id}/analytics/retention${qs({ from, to, buckets: 100 })}`, { signal }),
      ]);
      return funnelSteps(o.overview, r.buckets);
    },
    [id, from, to, n],
  );
  const max = Math.max(1, ...(steps.data ?? []).map((s) => s.count));
  return (
    <section class="card" aria-labelledby="funnel-title">
      <h2 id="funnel-title">Funnel</h2>
      <p class="hint">From the sessions shown the player to the orders; a mark counts the played sessions that watched it.</p>
      <ErrorBox error={steps.error} />
      {steps.data && (
        <DataTable class="breakdown" label="Funnel" text={["Step", "Sessions"]} numeric={["Drop from the step before"]}>
          {steps.data.map((s) => (
            <tr key={s.label} data-funnel={s.label}>
              <th scope="row">{s.label}</th>
              <BarCell value={s.count} max={max} shown={num(s.count)} />
              <td class="num" data-drop>
                {s.drop === null ? "—" : `−${pct(s.drop)}`}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
