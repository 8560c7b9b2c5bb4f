/** The baseline: bare Bun.serve answering a fixed JSON body read from stdin. */
export {};
const body = await new Response(Bun.stdin.stream()).text();
Bun.serve({ port: Number(process.argv[2]), fetch: () => new Response(body, { headers: { "Content-Type": "application/json;charset=utf-8" } }) });
