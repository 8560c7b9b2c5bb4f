/**
 * The response bodies of contract/api.ts, held to the routes' response schemas
 * when the server compiles: each route's schema, as the app's route table types
 * it, and the contract's shape must accept each other (`Same`). Where a schema
 * leaves a part open (a video's option groups under `additionalProperties`, a
 * page's envelope, a free-form settings object), the contract names that part:
 * it must pass the schema (`Narrows`), and the function that builds the body
 * must return exactly it. A property that is not `true` names the broken route.
 */
import type { App } from "./app.ts";
import type { Same, Narrows } from "./lib/same.ts";
import type { settingsOf, toFullVideo } from "./api/videos/service.ts";
import type { toDeployVersion } from "./api/settings/service.ts";
import type { paginate } from "./http/pagination.ts";
import type * as api from "../contract/api.ts";
import type { Settings } from "../contract/settings.ts";

/** `/api/v1/videos/:video` as the keys of the route table. */
type Segments<Path extends string> = Path extends `/${infer Head}/${infer Rest}`
  ? [Head, ...Segments<`/${Rest}`>]
  : Path extends `/${infer Last}`
    ? [Last]
    : [];
type At<Tree, Keys extends string[]> = Keys extends [infer Key extends string, ...infer Rest extends string[]] ? At<Tree[Key & keyof Tree], Rest> : Tree;
/** The body a route's response schema gives `status`. */
type Reply<Method extends string, Path extends string, Status extends number = 200> =
  At<App["~Routes"], Segments<Path>> extends infer Node
    ? Node[Method & keyof Node] extends { response: infer Responses }
      ? Responses[Status & keyof Responses]
      : never
    : never;

/** `"get /api/v1/videos"`, or with the status when it is not 200: `"post /api/v1/videos 201"`. */
type ReplyOf<Route extends string> = Route extends `${infer Method} ${infer Path} ${infer Status extends number}`
  ? Reply<Method, Path, Status>
  : Route extends `${infer Method} ${infer Path}`
    ? Reply<Method, Path>
    : never;

type Holds<Checks extends Record<string, true>> = Checks;

/** Each route the dashboard reads and its body in contract/api.ts: the two accept each other. */
interface Exact {
  "post /account/v1/sign-in": api.SignedIn;
  "post /account/v1/invites/accept": api.SignedIn;
  "get /account/v1/me": api.AccountMe;
  "post /account/v1/two-factor/setup": api.TwoFactorSetup;
  "post /account/v1/two-factor/enable": api.TwoFactorEnabled;
  "post /account/v1/workspaces/:id/api-token 201": api.SessionTokenMinted;
  "get /account/v1/workspaces/:id/members": api.Team;
  "post /account/v1/workspaces/:id/invites 201": api.InviteCreated;
  "get /account/v1/workspaces/:id/audit": api.AuditList;
  "get /admin/v1/workspaces": api.WorkspaceList;
  "post /admin/v1/workspaces 201": api.WorkspaceCreated;
  "get /admin/v1/workspaces/:id/tokens": api.TokenList;
  "post /admin/v1/workspaces/:id/tokens 201": api.TokenMinted;
  "delete /admin/v1/tokens/:id": api.TokenRevoked;
  "get /admin/v1/workspaces/:id/custom-metrics": api.MetricList;
  "post /admin/v1/workspaces/:id/custom-metrics 201": api.MetricDeclared;
  "get /admin/v1/workspaces/:id/integrations": api.IntegrationList;
  "put /admin/v1/workspaces/:id/integrations/:integration": api.IntegrationSet;
  "delete /api/v1/videos/:video": api.Deleted;
  "get /api/v1/videos/:video/status": api.VideoStatus;
  "get /api/v1/videos/:video/embed": api.EmbedRead;
  "get /api/v1/folders": api.FolderList;
  "post /api/v1/folders 201": api.FolderCreated;
  "post /api/v1/videos/:video/upload/init 201": api.UploadSession;
  "get /api/v1/uploads/:upload": api.UploadSession;
  "post /api/v1/uploads/:upload/complete 202": api.UploadCompleted;
  "get /api/v1/videos/:video/analytics/summary": api.AnalyticsSummary;
  "get /api/v1/videos/:video/analytics/retention": api.Retention;
  "get /api/v1/videos/:video/analytics/events": api.EventsPage;
  "get /api/v1/videos/:video/analytics/conversions": api.ConversionsByName;
  "get /api/v1/videos/:video/analytics/overview": api.SellerOverview;
  "get /api/v1/videos/:video/analytics/breakdown": api.Breakdown;
  "get /api/v1/analytics/overview": api.WorkspaceOverview;
  "get /api/v1/analytics/live": api.WatchingNow;
  "get /api/v1/videos/:video/ad-spend": api.AdSpendList;
  "post /api/v1/videos/:video/ad-spend 201": api.AdSpendSaved;
  "delete /api/v1/videos/:video/ad-spend/:id": api.Deleted;
  "post /api/v1/exports 202": api.ExportCreated;
  "get /api/v1/exports/:export": api.ExportRead;
  "get /api/v1/webhooks": api.WebhookList;
  "post /api/v1/webhooks 201": api.WebhookCreated;
  "delete /api/v1/webhooks/:webhook": api.Deleted;
  "post /api/v1/webhooks/:webhook/test": api.WebhookDelivered;
  "post /api/v1/webhooks/:webhook/test 502": api.WebhookNotDelivered;
  "post /api/v1/split-tests 201": api.SplitTestRead;
  "get /api/v1/split-tests/:id": api.SplitTestRead;
  "post /api/v1/split-tests/:id/pause": api.SplitTestRead;
  "post /api/v1/split-tests/:id/resume": api.SplitTestRead;
  "post /api/v1/split-tests/:id/end": api.SplitTestRead;
  "get /api/v1/split-tests/:id/report": api.SplitTestReport;
  "get /api/v1/playback-defaults": api.PlaybackDefaultsRead;
  "patch /api/v1/playback-defaults": api.PlaybackDefaultsRead;
  "get /api/v1/signing-keys": api.SigningKeyList;
  "post /api/v1/signing-keys 201": api.SigningKeyCreated;
  "delete /api/v1/signing-keys/:id": api.Deleted;
  "get /api/v1/videos/:video/viewers/:viewer": api.ViewerTimeline;
  "get /api/v1/videos/:video/viewers/:viewer/heatmap": api.ViewerHeatmap;
  "delete /api/v1/viewers/:viewer": api.Deleted;
  "get /api/v1/funnels/report": api.FunnelReport;
}

/**
 * Routes whose schema leaves a part open that the contract names (a video's option
 * groups, a page's envelope, a free-form settings object): the contract's body
 * passes the schema. GET /videos/:video answers a body serialised ahead
 * (documented, not validated); PATCH answers the same shape.
 */
interface Open {
  "post /admin/v1/workspaces/:id/videos/:video/deploy": api.Deployed;
  "get /api/v1/videos": api.Page<api.SlimVideo>;
  "post /api/v1/videos 201": api.VideoCreated;
  "patch /api/v1/videos/:video": api.VideoRead;
  "post /api/v1/videos/:video/duplicate 201": api.VideoRead;
  "get /api/v1/videos/:video/settings": api.SettingsRead;
  "get /api/v1/videos/:video/deploys": api.Page<api.DeployVersion>;
  "post /api/v1/videos/:video/deploy": api.Deployed;
  "post /api/v1/videos/:video/deploys/:version/restore": api.Restored;
  "get /api/v1/split-tests": api.Page<api.SplitTest>;
  "get /api/v1/videos/:video/viewers": api.Page<api.ViewerRow>;
}

export type ApiContract = [
  Holds<{ [Route in keyof Exact]: Same<ReplyOf<Route>, Exact[Route]> }>,
  Holds<{ [Route in keyof Open]: Narrows<Open[Route], ReplyOf<Route>> }>,
  // The closed parts of the open routes, and the functions that build the open parts.
  Holds<{
    slimVideo: Same<ReplyOf<"get /api/v1/videos">["data"][number], api.SlimVideo>;
    page: Same<ReturnType<typeof paginate<api.SlimVideo>>, api.Page<api.SlimVideo>>;
    fullVideo: Same<ReplyOf<"patch /api/v1/videos/:video">["video"], api.FullVideo>;
    videoWithSettings: Same<ReturnType<typeof toFullVideo>, api.VideoWithSettings>;
    createdStatus: Same<ReplyOf<"post /api/v1/videos 201">["status"], api.VideoStatus>;
    settings: Same<ReturnType<typeof settingsOf>, Settings>;
    deployVersion: Same<ReturnType<typeof toDeployVersion>, api.DeployVersion>;
    splitTest: Same<ReplyOf<"get /api/v1/split-tests">["data"][number], api.SplitTest>;
    viewer: Same<ReplyOf<"get /api/v1/videos/:video/viewers">["data"][number], api.ViewerRow>;
  }>,
];
