/**
 * `npm run cli -- <command>`: a thin client of the operator API (docs/api.md),
 * printing JSON. It talks to PUBLIC_URL with ADMIN_KEY (or DATA_DIR/admin.key).
 */
import { parseArgs } from "node:util";
import { loadConfig } from "./config.ts";
import { resolveAdminKey } from "./bootstrap.ts";

const USAGE = `usage: npm run cli -- <command>
  workspace create --name NAME
  workspace list
  token create --workspace ID --scopes a,b [--name NAME] [--expires-days N]
  token list --workspace ID
  token revoke --id ID
  metric declare --workspace ID --name NAME
  integration set --workspace ID --name NAME --browser-fallback on|off
  create-user --email EMAIL [--workspace ID] [--role owner|editor|analyst] [--password P]
    (without --password one is generated and printed once)`;

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const { positionals, values } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: {
    name: { type: "string" },
    workspace: { type: "string" },
    scopes: { type: "string" },
    "expires-days": { type: "string" },
    id: { type: "string" },
    "browser-fallback": { type: "string" },
    email: { type: "string" },
    role: { type: "string" },
    password: { type: "string" },
  },
});

const config = loadConfig(process.env);
const adminKey = config.adminKey ?? (await resolveAdminKey(config)).key;

async function call(method: string, path: string, body?: unknown): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${config.publicUrl}/admin/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${adminKey}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch (error) {
    fail(`cannot reach Frameline at ${config.publicUrl}: ${(error as Error).message} (is \`npm start\` running? set PUBLIC_URL otherwise)`);
  }
  const text = await response.text();
  console.log(text ? JSON.stringify(JSON.parse(text), null, 2) : "");
  if (!response.ok) process.exit(1);
}

const need = (name: keyof typeof values) => values[name] ?? fail(`--${name} is required\n\n${USAGE}`);
const [noun, verb] = positionals;

switch (noun === "create-user" ? noun : `${noun} ${verb}`) {
  case "create-user":
    await call("POST", "/users", {
      email: need("email"),
      ...(values.workspace ? { workspace_id: Number(values.workspace) } : {}),
      ...(values.role ? { role: values.role } : {}),
      ...(values.password ? { password: values.password } : {}),
    });
    break;
  case "workspace create":
    await call("POST", "/workspaces", { name: need("name") });
    break;
  case "workspace list":
    await call("GET", "/workspaces");
    break;
  case "token create": {
    const days = values["expires-days"];
    await call("POST", `/workspaces/${need("workspace")}/tokens`, {
      name: values.name ?? "CLI token",
      scopes: (need("scopes") as string)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
      ...(days ? { expires_in_days: Number(days) } : {}),
    });
    break;
  }
  case "token list":
    await call("GET", `/workspaces/${need("workspace")}/tokens`);
    break;
  case "token revoke":
    await call("DELETE", `/tokens/${need("id")}`);
    break;
  case "metric declare":
    await call("POST", `/workspaces/${need("workspace")}/custom-metrics`, { name: need("name") });
    break;
  case "integration set": {
    const flag = need("browser-fallback");
    if (flag !== "on" && flag !== "off") fail("--browser-fallback takes on or off");
    await call("PUT", `/workspaces/${need("workspace")}/integrations/${need("name")}`, { browser_fallback: flag === "on" });
    break;
  }
  default:
    fail(USAGE);
}
