/**
 * The response bodies of contract/api.ts, held to the routes' response schemas
 * when the server compiles: each route's schema, as the app's route table types
 * it, and the contract's shape must accept each other (`Same`). Where a schema
 * leaves a part open (a video's option groups under `additionalProperties`, a
 * page's envelope, a free-form settings object), the contract names that part:
 * it must pass the schema (`Narrows`), and the function that builds the body
 * must return exactly it. A property that is not `true` names the broken pair.
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

type Holds<Checks extends Record<string, true>> = Checks;

export type ApiContract = Holds<{
  // The operator API.
  workspaces: Same<Reply<"get", "/admin/v1/workspaces">, api.WorkspaceList>;
  workspaceCreated: Same<Reply<"post", "/admin/v1/workspaces", 201>, api.WorkspaceCreated>;
  tokens: Same<Reply<"get", "/admin/v1/workspaces/:id/tokens">, api.TokenList>;
  tokenMinted: Same<Reply<"post", "/admin/v1/workspaces/:id/tokens", 201>, api.TokenMinted>;
  tokenRevoked: Same<Reply<"delete", "/admin/v1/tokens/:id">, api.TokenRevoked>;
  metrics: Same<Reply<"get", "/admin/v1/workspaces/:id/custom-metrics">, api.MetricList>;
  metricDeclared: Same<Reply<"post", "/admin/v1/workspaces/:id/custom-metrics", 201>, api.MetricDeclared>;
  integrations: Same<Reply<"get", "/admin/v1/workspaces/:id/integrations">, api.IntegrationList>;
  integrationSet: Same<Reply<"put", "/admin/v1/workspaces/:id/integrations/:integration">, api.IntegrationSet>;
  operatorDeployed: Narrows<api.Deployed, Reply<"post", "/admin/v1/workspaces/:id/videos/:video/deploy">>;

  // Videos and their settings. GET /videos/:video answers a body serialised ahead (documented, not validated): PATCH answers the same shape.
  videoPage: Narrows<api.Page<api.SlimVideo>, Reply<"get", "/api/v1/videos">>;
  slimVideo: Same<Reply<"get", "/api/v1/videos">["data"][number], api.SlimVideo>;
  pageBuilt: Same<ReturnType<typeof paginate<api.SlimVideo>>, api.Page<api.SlimVideo>>;
  fullVideo: Same<Reply<"patch", "/api/v1/videos/:video">["video"], api.FullVideo>;
  videoBuilt: Same<ReturnType<typeof toFullVideo>, api.VideoWithSettings>;
  videoRead: Narrows<api.VideoRead, Reply<"patch", "/api/v1/videos/:video">>;
  videoDuplicated: Narrows<api.VideoRead, Reply<"post", "/api/v1/videos/:video/duplicate", 201>>;
  videoCreated: Narrows<api.VideoCreated, Reply<"post", "/api/v1/videos", 201>>;
  videoDeleted: Same<Reply<"delete", "/api/v1/videos/:video">, api.Deleted>;
  status: Same<Reply<"get", "/api/v1/videos/:video/status">, api.VideoStatus>;
  createdStatus: Same<Reply<"post", "/api/v1/videos", 201>["status"], api.VideoStatus>;
  settingsRead: Narrows<api.SettingsRead, Reply<"get", "/api/v1/videos/:video/settings">>;
  settingsBuilt: Same<ReturnType<typeof settingsOf>, Settings>;
  deploys: Narrows<api.Page<api.DeployVersion>, Reply<"get", "/api/v1/videos/:video/deploys">>;
  deployVersionBuilt: Same<ReturnType<typeof toDeployVersion>, api.DeployVersion>;
  deployed: Narrows<api.Deployed, Reply<"post", "/api/v1/videos/:video/deploy">>;
  restored: Narrows<api.Restored, Reply<"post", "/api/v1/videos/:video/deploys/:version/restore">>;
  embed: Same<Reply<"get", "/api/v1/videos/:video/embed">, api.EmbedRead>;

  // Folders and uploads.
  folders: Same<Reply<"get", "/api/v1/folders">, api.FolderList>;
  folderCreated: Same<Reply<"post", "/api/v1/folders", 201>, api.FolderCreated>;
  uploadStarted: Same<Reply<"post", "/api/v1/videos/:video/upload/init", 201>, api.UploadSession>;
  upload: Same<Reply<"get", "/api/v1/uploads/:upload">, api.UploadSession>;
  uploadCompleted: Same<Reply<"post", "/api/v1/uploads/:upload/complete", 202>, api.UploadCompleted>;

  // Analytics, ad spend and exports.
  summary: Same<Reply<"get", "/api/v1/videos/:video/analytics/summary">, api.AnalyticsSummary>;
  retention: Same<Reply<"get", "/api/v1/videos/:video/analytics/retention">, api.Retention>;
  events: Same<Reply<"get", "/api/v1/videos/:video/analytics/events">, api.EventsPage>;
  conversions: Same<Reply<"get", "/api/v1/videos/:video/analytics/conversions">, api.ConversionsByName>;
  sellerOverview: Same<Reply<"get", "/api/v1/videos/:video/analytics/overview">, api.SellerOverview>;
  breakdown: Same<Reply<"get", "/api/v1/videos/:video/analytics/breakdown">, api.Breakdown>;
  workspaceOverview: Same<Reply<"get", "/api/v1/analytics/overview">, api.WorkspaceOverview>;
  adSpend: Same<Reply<"get", "/api/v1/videos/:video/ad-spend">, api.AdSpendList>;
  adSpendSaved: Same<Reply<"post", "/api/v1/videos/:video/ad-spend", 201>, api.AdSpendSaved>;
  adSpendDeleted: Same<Reply<"delete", "/api/v1/videos/:video/ad-spend/:id">, api.Deleted>;
  exportCreated: Same<Reply<"post", "/api/v1/exports", 202>, api.ExportCreated>;
  exportRead: Same<Reply<"get", "/api/v1/exports/:export">, api.ExportRead>;

  // Webhooks.
  webhooks: Same<Reply<"get", "/api/v1/webhooks">, api.WebhookList>;
  webhookCreated: Same<Reply<"post", "/api/v1/webhooks", 201>, api.WebhookCreated>;
  webhookDeleted: Same<Reply<"delete", "/api/v1/webhooks/:webhook">, api.Deleted>;
  webhookDelivered: Same<Reply<"post", "/api/v1/webhooks/:webhook/test">, api.WebhookDelivered>;
  webhookNotDelivered: Same<Reply<"post", "/api/v1/webhooks/:webhook/test", 502>, api.WebhookNotDelivered>;

  // Split tests.
  splitTests: Narrows<api.Page<api.SplitTest>, Reply<"get", "/api/v1/split-tests">>;
  splitTest: Same<Reply<"get", "/api/v1/split-tests">["data"][number], api.SplitTest>;
  splitTestCreated: Same<Reply<"post", "/api/v1/split-tests", 201>, api.SplitTestRead>;
  splitTestRead: Same<Reply<"get", "/api/v1/split-tests/:id">, api.SplitTestRead>;
  splitTestPaused: Same<Reply<"post", "/api/v1/split-tests/:id/pause">, api.SplitTestRead>;
  splitTestResumed: Same<Reply<"post", "/api/v1/split-tests/:id/resume">, api.SplitTestRead>;
  splitTestEnded: Same<Reply<"post", "/api/v1/split-tests/:id/end">, api.SplitTestRead>;
  report: Same<Reply<"get", "/api/v1/split-tests/:id/report">, api.SplitTestReport>;
}>;
