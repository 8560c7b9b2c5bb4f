/** The tabs of one video: overview (upload, status, embed), player settings, analytics, viewers, funnel paths. */
import { Link } from "../components.tsx";

export function VideoNav({ id, current, title }: { id: number; current: "overview" | "settings" | "analytics" | "viewers" | "paths"; title?: string }) {
  const tabs = [
    { k: "overview", href: `/videos/${id}`, l: "Upload & embed" },
    { k: "settings", href: `/videos/${id}/settings`, l: "Player settings" },
    { k: "analytics", href: `/videos/${id}/analytics`, l: "Analytics" },
    { k: "viewers", href: `/videos/${id}/viewers`, l: "Viewers" },
    { k: "paths", href: `/videos/${id}/paths`, l: "Funnel paths" },
  ];
  return (
    <>
      <p class="crumbs">
        <Link href="/videos">Videos</Link> <span aria-hidden="true">›</span> <span>{title ?? `#${id}`}</span>
      </p>
      <nav class="tabs" aria-label="Video">
        <ul>
          {tabs.map((t) => (
            <li key={t.k}>
              <Link href={t.href} aria-current={t.k === current ? "page" : undefined}>
                {t.l}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </>
  );
}
