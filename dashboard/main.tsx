/** The Frameline dashboard: sign-in (an account, or the operator's key), invites, the workspace picker and the pages. */
import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { render } from "preact";
import { signOut } from "./api.ts";
import { Link } from "./components.tsx";
import { match, navigate, useRoute } from "./router.ts";
import * as session from "./session.ts";
import { SignIn } from "./pages/sign-in.tsx";
import { Join } from "./pages/join.tsx";
import { Team } from "./pages/team.tsx";
import { Account } from "./pages/account.tsx";
import type { Role } from "../contract/roles.ts";
import { Workspaces } from "./pages/workspaces.tsx";
import { Settings } from "./pages/settings.tsx";
import { Videos } from "./pages/videos.tsx";
import { VideoPage } from "./pages/video.tsx";
import { PlayerSettings } from "./pages/player-settings.tsx";
import { Analytics, AnalyticsPicker } from "./pages/analytics.tsx";
import { Home } from "./pages/home.tsx";
import { Webhooks } from "./pages/webhooks.tsx";
import { SplitTests } from "./pages/split-tests.tsx";
import { SplitTestPage } from "./pages/split-test.tsx";
import { ViewerPage, Viewers } from "./pages/viewers.tsx";
import { FunnelPaths } from "./pages/funnel-paths.tsx";
import { useEffect } from "preact/hooks";

function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, true), [to]);
  return null;
}

/** The main navigation: each section at its own path (Settings opens on its tokens tab), shown to the roles that may use it. */
const NAV: { label: string; href: string; role: Role; account?: true }[] = [
  { label: "Home", href: "/home", role: "analyst" },
  { label: "Videos", href: "/videos", role: "analyst" },
  { label: "Analytics", href: "/analytics", role: "analyst" },
  { label: "Split tests", href: "/split-tests", role: "analyst" },
  { label: "Webhooks", href: "/webhooks", role: "editor" },
  { label: "Team", href: "/team", role: "owner", account: true },
  { label: "Settings", href: "/settings/tokens", role: "owner" },
];

function Shell({ path, children }: { path: string; children: preact.ComponentChildren }) {
  const ws = session.workspace();
  const out = async (everywhere = false) => {
    await signOut(everywhere);
    navigate("/", true);
  };
  const nav = NAV.filter((n) => session.can(n.role) && (!n.account || session.account()));
  const section = "/" + (path.split("/")[1] || "");
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">Frameline</div>
        <nav aria-label="Main">
          <ul>
            {nav.map((n) => (
              <li key={n.href}>
                <Link href={n.href} aria-current={n.href.startsWith(section) && section !== "/" ? "page" : undefined}>
                  {n.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          {ws && (
            <Link href="/workspaces" class="ws">
              <span class="sr-only">Workspace: </span>
              {ws.name}
              {ws.role ? ` (${ws.role})` : ""} <span aria-hidden="true">▾</span>
              <span class="sr-only"> (switch workspace)</span>
            </Link>
          )}
          {session.account() && (
            <Link href="/account" class="ws">
              Your account
            </Link>
          )}
          <button type="button" class="link" onClick={() => out()}>
            Sign out
          </button>
          {session.account() && (
            <button type="button" class="link" onClick={() => out(true)}>
              Everywhere
              <span class="sr-only"> (sign out on every device)</span>
            </button>
          )}
        </div>
      </header>
      <main id="main">{children}</main>
    </>
  );
}

function App() {
  const { path, query } = useRoute();
  if (path === "/join") return <Join />;
  if (!session.signedIn()) return path === "/" ? <SignIn /> : <Redirect to="/" />;
  if (path === "/") return <Redirect to={session.workspace() ? "/videos" : "/workspaces"} />;
  if (path === "/workspaces") return <Workspaces />;
  if (!session.workspace()) return <Redirect to="/workspaces" />;

  let page: preact.JSX.Element | null = null;
  let m: Record<string, string> | undefined;
  if (path === "/home") page = <Home query={query} />;
  else if (path === "/videos") page = <Videos query={query} />;
  else if ((m = match("/videos/:id", path))) page = <VideoPage id={Number(m.id)} />;
  else if ((m = match("/videos/:id/settings", path))) page = <PlayerSettings id={Number(m.id)} />;
  else if ((m = match("/videos/:id/analytics", path))) page = <Analytics id={Number(m.id)} query={query} />;
  else if ((m = match("/videos/:id/viewers", path))) page = <Viewers id={Number(m.id)} leadsOnly={query.get("identified") === "true"} />;
  else if ((m = match("/videos/:id/viewers/:viewer", path))) page = <ViewerPage id={Number(m.id)} viewer={Number(m.viewer)} />;
  else if ((m = match("/videos/:id/paths", path))) page = <FunnelPaths id={Number(m.id)} />;
  else if (path === "/analytics") page = <AnalyticsPicker />;
  else if (path === "/split-tests") page = <SplitTests />;
  else if ((m = match("/split-tests/:id", path))) page = <SplitTestPage id={Number(m.id)} />;
  else if (path === "/webhooks") page = <Webhooks />;
  else if (path === "/team") page = <Team />;
  else if (path === "/account" && session.account()) page = <Account />;
  else if ((m = match("/settings/:tab", path))) page = <Settings tab={m.tab} />;
  else if (path === "/settings") return <Redirect to="/settings/tokens" />;
  else
    page = (
      <section>
        <h1>Page not found</h1>
        <p>
          <Link href="/videos">Go to your videos</Link>
        </p>
      </section>
    );
  return (
    <Shell path={path} key={session.workspace()?.id}>
      {page}
    </Shell>
  );
}

render(<App />, document.getElementById("app")!);
