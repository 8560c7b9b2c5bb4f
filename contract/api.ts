/**
 * The response bodies of the application API and the operator API that the
 * dashboard reads (docs/api.md), declared once. The server checks each against
 * its routes' response schemas when it compiles (server/api-contract.ts), so a
 * schema and its shape here cannot drift apart. Types only: the dashboard
 * bundles none of the server's schemas.
 */
import type { GroupMetrics } from "./analytics.ts";
import type { Settings } from "./settings.ts";
import type { Role } from "./roles.ts";

/** The paginated envelope of docs/api.md "Endpoints" (the Laravel paginator shape). */
export interface Page<T> {
  current_page: number;
  data: T[];
  first_page_url: string;
  from: number | null;
  last_page: number;
  last_page_url: string;
  links: { url: string | null; label: string; active: boolean }[];
  next_page_url: string | null;
  path: string;
  per_page: number;
  prev_page_url: string | null;
  to: number | null;
  total: number;
}

export interface Deleted {
  deleted: boolean;
}

// ---- dashboard accounts (/account/v1)

export interface AccountUser {
  id: number;
  email: string;
}
/** `POST /account/v1/sign-in` and `/invites/accept`: the session is in the cookie; the CSRF token goes in X-CSRF-Token. */
export interface SignedIn {
  user: AccountUser;
  csrf_token: string;
}
export interface Membership extends Workspace {
  role: Role;
}
export interface AccountMe extends SignedIn {
  two_factor: boolean;
  workspaces: Membership[];
}
export interface TwoFactorSetup {
  secret: string;
  otpauth_url: string;
}
export interface TwoFactorEnabled {
  enabled: boolean;
  /** Shown once. */
  recovery_codes: string[];
}
export interface SessionTokenMinted {
  token: Token;
  secret: string;
  role: Role;
}
export interface Member {
  user_id: number;
  email: string;
  role: Role;
  created_at: string;
}
export interface Invite {
  id: number;
  email: string;
  role: Role;
  expires_at: string;
  created_at: string;
}
export interface Team {
  members: Member[];
  invites: Invite[];
}
export interface InviteCreated {
  invite: Invite;
  /** The link to send, shown once. */
  url: string;
  /** The link was also mailed (SMTP_URL). */
  emailed: boolean;
}
export interface AuditEntry {
  id: number;
  actor: string;
  action: string;
  detail: Record<string, unknown>;
  created_at: string;
}
export interface AuditList {
  entries: AuditEntry[];
}

// ---- the operator API

export interface Workspace {
  id: number;
  code: string;
  name: string;
  created_at: string;
}

export interface Token {
  id: number;
  name: string;
  scopes: string[];
  expires_at: string | null;
  created_at: string;
}

export interface Integration {
  name: string;
  browser_fallback: boolean;
}

export interface WorkspaceList {
  workspaces: Workspace[];
}
export interface WorkspaceCreated {
  workspace: Workspace;
  /** Shown once; only its hash is stored. */
  legacy_key: string;
}
export interface TokenList {
  tokens: Token[];
}
export interface TokenMinted {
  token: Token;
  /** Shown once; only its hash is stored. */
  secret: string;
}
export interface TokenRevoked {
  revoked: boolean;
}
export interface MetricList {
  metrics: { name: string }[];
}
export interface MetricDeclared {
  metric: { name: string };
}
export interface IntegrationList {
  integrations: Integration[];
}
export interface IntegrationSet {
  integration: Integration;
}

// ---- videos and their settings

export type Orientation = "landscape" | "portrait";

/** A video in a list. */
export interface SlimVideo {
  id: number;
  title: string;
  code: string;
  workspace_id: number;
  created_at: string;
  updated_at: string;
}

/** A video read whole: these fields, and every option group beside them (`VideoWithSettings`). */
export interface FullVideo {
  id: number;
  code: string;
  workspace_id: number;
  title: string;
  folder_id: number | null;
  tags: string[];
  player_version: string;
  plain_mode: boolean;
  landscape_hls: string | null;
  portrait_hls: string | null;
  landscape_thumb: string | null;
  portrait_thumb: string | null;
  script_url: string;
  default_orientation: Orientation;
  /** Sites allowed to play the video (host, host:port or *.domain); empty: any (README "Playback protection"). */
  allowed_origins: string[];
  /** Every media request needs a signed token for this video. */
  require_signed_urls: boolean;
  /** Encrypted streams: `aes-128` encrypts the video's HLS segments (README "Playback protection"). */
  encryption: "none" | "aes-128";
  created_at: string;
  updated_at: string;
}

export type VideoWithSettings = FullVideo & Settings;

export interface OrientationStatus {
  status: string;
  progress: number;
  error: string | null;
}

/** docs/api.md "Status object". */
export interface VideoStatus {
  id: number;
  code?: string;
  title?: string;
  folder_id?: number | null;
  status: "waiting_for_upload" | "processing" | "ready" | "error";
  orientations: { landscape: OrientationStatus | null; portrait: OrientationStatus | null };
  plain_mode: boolean;
  status_url?: string;
  embed: { script_url: string; html: string; plain_html: string } | null;
}

export interface VideoRead {
  video: VideoWithSettings;
}
export interface VideoCreated {
  video: VideoWithSettings;
  status: VideoStatus;
}
export interface SettingsRead {
  settings: Settings;
}

export interface DeployVersion {
  id: number;
  workspace_video_id: number;
  created_by: number | null;
  label: string | null;
  version_hash: string;
  settings_snapshot: Settings;
  is_live: boolean;
  created_at: string;
  updated_at: string;
}

export interface Deployed {
  video: VideoWithSettings;
  version_id: number;
  embed_url: string;
}
export interface Restored {
  video: VideoWithSettings;
  restored_version_id: number;
}

/** A timed reveal as the embed and config reads answer it: each field completed with the player's default. */
export interface TimedEventRead {
  time_s: number;
  selector: string | null;
  action: "show" | "hide";
  name: string | null;
  persist: boolean;
}

export interface EmbedRead {
  html: string;
  mode: string;
  timed_events: TimedEventRead[];
}

// ---- folders

export interface Folder {
  id: number;
  parent_id: number | null;
  name: string;
  color: string | null;
  created_at: string;
  updated_at: string;
}

export interface FolderList {
  folders: (Folder & { videos_count: number })[];
}
export interface FolderCreated {
  folder: Folder;
}

// ---- uploads

export interface UploadSession {
  upload_id: string;
  video_id?: number;
  chunk_size: number;
  offset: number;
  size: number;
  expires_at: string;
  upload_url: string;
}

export interface UploadCompleted {
  video: VideoStatus;
}

// ---- analytics and ad spend

interface ReadWindow {
  video_id: number;
  video_code: string;
  from: string;
  to: string;
  tz: string;
}

export interface AnalyticsSummary extends ReadWindow {
  summary: {
    plays: number;
    unique_plays: number;
    completion_count: number;
    completion_rate: number;
    avg_watch_time_s: number;
    bounce_count: number;
  };
}

export interface RetentionBucket {
  bucket_pct: number;
  watch_pct: number;
}
export interface Retention {
  video_id: number;
  buckets: RetentionBucket[];
}

export interface EventRow {
  event_type: string;
  event: string | null;
  session_code: string | null;
  watch_seconds: number;
  video_time: number;
  created_at: string;
  ip_hash: null;
}
export interface EventsPage {
  video_id: number;
  page: number;
  per_page: number;
  events: { total: number; data: EventRow[] };
}

/** One viewer of a video (docs/api.md "Viewers"). */
export interface ViewerRow {
  viewer_id: number;
  identified: boolean;
  email: string | null;
  external_id: string | null;
  sessions: number;
  first_seen_at: string;
  last_seen_at: string;
  watch_time_s: number;
  furthest_percent: number;
  plays: number;
  leads: number;
  orders: number;
  revenue: { currency: string | null; amount: number }[];
}

export interface ViewerEvent {
  /** play, pause, seek, ended, cta_click, quiz_answer, lead or sale. */
  type: string;
  at: string;
  video_time: number | null;
  detail: Record<string, string | number | boolean | null>;
}

export interface ViewerSession {
  session_id: string;
  started_at: string;
  source: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  country: string | null;
  watch_time_s: number;
  /** [from_s, to_s] stretches of playback, in the order watched. */
  watched_ranges: number[][];
  events: ViewerEvent[];
}

export interface ViewerTimeline {
  video_id: number;
  viewer: ViewerRow;
  sessions: ViewerSession[];
}

export interface ViewerHeatmap {
  buckets: number;
  duration_s: number | null;
  /** How many times each equal part of the video was watched; 0 = skipped. */
  counts: number[];
}

/** A video a funnel report names. */
export interface FunnelVideo {
  id: number;
  code: string;
  title: string;
}

/** One step of a funnel's paths: the sessions that reached `video` by the choices from the entry. */
export interface FunnelStep {
  /** Its place in `steps`, depth first. */
  id: number;
  /** The step it was taken from; null for the entry video. */
  parent_id: number | null;
  depth: number;
  /** The choice taken on the parent's video; null for the entry video. */
  choice: { key: string; label: string } | null;
  video: FunnelVideo;
  sessions: number;
  viewers: number;
  plays: number;
  completions: number;
  leads: number;
  revenue: { currency: string | null; amount: number }[];
}

/** GET /api/v1/funnels/report. */
export interface FunnelReport {
  entry_video: FunnelVideo;
  from: string;
  to: string;
  tz: string;
  steps: FunnelStep[];
}

export interface ConversionsByName {
  video_id: number;
  from: string;
  to: string;
  conversions: { event_name: string; count: number; total_revenue: number }[];
}

export interface SellerOverview extends ReadWindow {
  overview: GroupMetrics;
}

export interface BreakdownRow extends GroupMetrics {
  value: string | null;
  other: boolean;
}
export interface Breakdown extends ReadWindow {
  by: string;
  rows: BreakdownRow[];
}

export interface WorkspaceOverviewRow extends GroupMetrics {
  video_id: number;
  video_code: string;
  title: string;
}
/** `GET /analytics/live`: Home's "watching now". */
export interface WatchingNow {
  watching_now: number;
  since: string;
}

export interface WorkspaceOverview {
  from: string;
  to: string;
  tz: string;
  sort: string;
  order: string;
  currency: string | null;
  page: number;
  per_page: number;
  total: number;
  videos: WorkspaceOverviewRow[];
}

export interface AdSpendEntry {
  id: number;
  video_id: number;
  date: string;
  source: string;
  currency: string;
  amount: number;
  created_at: string;
  updated_at: string;
}
export interface AdSpendList {
  video_id: number;
  from: string;
  to: string;
  ad_spend: AdSpendEntry[];
}
export interface AdSpendSaved {
  ad_spend: AdSpendEntry;
}

// ---- exports

export interface ExportCreated {
  export_id: string;
  status: "pending";
}
export interface ExportRead {
  export_id: string;
  status: "pending" | "processing" | "ready" | "failed";
  download_url: string | null;
}

// ---- webhooks

export interface Webhook {
  id: number;
  workspace_id: number;
  name: string;
  url: string;
  events: string[];
  is_active: boolean;
  failure_count: number;
  created_at: string;
  updated_at: string;
}
export interface WebhookList {
  webhooks: Webhook[];
  supported_events: string[];
}
export interface WebhookCreated {
  webhook: Webhook;
}
export interface WebhookDelivered {
  delivered: true;
  status_code: number;
}
/** The 502 of a test the endpoint did not take. */
export interface WebhookNotDelivered {
  delivered: false;
  error: string;
}

// ---- split tests (README "Split tests")

export interface SplitTestVariation {
  id: number;
  video_id: number | null;
  video_code: string | null;
  title: string | null;
  weight: number;
  control: boolean;
}

export interface SplitTest {
  id: number;
  code: string;
  name: string;
  /** conversion, play or cta_click. */
  goal: string;
  /** running, paused or ended. */
  status: string;
  auto_promote: boolean;
  variations: SplitTestVariation[];
  control_variation_id: number;
  declared_winner: { variation_id: number; declared_at: string } | null;
  winner_variation_id: number | null;
  serving_variation_id: number | null;
  embed: { script_url: string; html: string };
  ended_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SplitTestRead {
  split_test: SplitTest;
}

export interface ReportVariation {
  variation_id: number;
  video_id: number | null;
  video_code: string | null;
  title: string | null;
  weight: number;
  control: boolean;
  impressions: number;
  plays: number;
  play_rate: number | null;
  unique_viewers: number;
  /** Always true: distinct viewers are counted exactly (kept for clients that read it). */
  unique_viewers_exact: boolean;
  conversions: number;
  conversion_rate: number | null;
  cta_click_sessions: number;
  revenue: { currency: string | null; orders: number; revenue: number; rpv: number | null }[];
  goal: {
    trials: number;
    successes: number;
    rate: number | null;
    difference: number | null;
    ci_low: number | null;
    ci_high: number | null;
    p_value: number | null;
    probability_to_beat_control: number | null;
  };
}

export interface SplitTestReport {
  split_test_id: number;
  goal: string;
  from: string;
  to: string;
  tz: string;
  variations: ReportVariation[];
  decision: {
    method: string;
    confidence: number;
    minimum_trials: number;
    minimum_expected: number;
    sample_reached: boolean;
    leader_variation_id: number | null;
    significant: boolean;
    declared_variation_id: number | null;
    declared_at: string | null;
  };
  series: {
    date: string;
    variations: { variation_id: number; trials: number; successes: number; rate: number | null; cumulative_rate: number | null }[];
  }[];
}

/** `GET`/`PATCH /playback-defaults` (README "Playback protection"). */
export interface PlaybackDefaultsRead {
  playback_defaults: { allowed_origins: string[]; require_signed_urls: boolean };
}
export interface SigningKey {
  id: string;
  algorithm: "HS256";
  created_at: string;
}
export interface SigningKeyList {
  data: SigningKey[];
}
export interface SigningKeyCreated {
  /** `secret` and `jwk.k` are shown once: only the service and its holder know them. */
  signing_key: SigningKey & { secret: string; jwk: { kty: "oct"; kid: string; alg: "HS256"; k: string } };
}
