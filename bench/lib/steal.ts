/**
 * Share of CPU time the hypervisor took from this virtual machine ("steal", from
 * Linux's /proc/stat) while a bench ran: on a shared host it explains figures
 * that drift from run to run. Undefined where /proc/stat is not readable.
 */
export async function stealMeter(): Promise<() => Promise<number | undefined>> {
  const read = async () => {
    const line =
      (
        await Bun.file("/proc/stat")
          .text()
          .catch(() => "")
      ).split("\n")[0] ?? "";
    const fields = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...
    return fields.length >= 8 ? { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7]! } : undefined;
  };
  const start = await read();
  return async () => {
    const end = await read();
    if (!start || !end || end.total === start.total) return undefined;
    return Math.round((1000 * (end.steal - start.steal)) / (end.total - start.total)) / 10;
  };
}
