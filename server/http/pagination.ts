/**
 * The paginated envelope of docs/api.md "Endpoints" (the Laravel paginator shape,
 * `Page` in contract/api.ts): page links keep every other query parameter of the request.
 */
import type { Page } from "../../contract/api.ts";

export function paginate<T>(opts: { publicUrl: string; request: Request; data: T[]; page: number; perPage: number; total: number }): Page<T> {
  const { data, page, perPage, total } = opts;
  const url = new URL(opts.request.url);
  const path = opts.publicUrl + url.pathname;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const pageUrl = (n: number) => {
    const params = new URLSearchParams(url.search);
    params.set("page", String(n));
    return `${path}?${params}`;
  };
  const from = data.length ? (page - 1) * perPage + 1 : null;
  const links: Page<T>["links"] = [{ url: page > 1 ? pageUrl(page - 1) : null, label: "« Previous", active: false }];
  for (const n of pageWindow(page, lastPage)) {
    links.push(n === null ? { url: null, label: "...", active: false } : { url: pageUrl(n), label: String(n), active: n === page });
  }
  links.push({ url: page < lastPage ? pageUrl(page + 1) : null, label: "Next »", active: false });
  return {
    current_page: page,
    data,
    first_page_url: pageUrl(1),
    from,
    last_page: lastPage,
    last_page_url: pageUrl(lastPage),
    links,
    next_page_url: page < lastPage ? pageUrl(page + 1) : null,
    path,
    per_page: perPage,
    prev_page_url: page > 1 ? pageUrl(page - 1) : null,
    to: from === null ? null : from + data.length - 1,
    total,
  };
}

/** Page numbers to link: all when few, else the ends and a window around the current page. */
function pageWindow(page: number, last: number): (number | null)[] {
  if (last <= 10) return Array.from({ length: last }, (_, i) => i + 1);
  const pages = new Set([1, 2, last - 1, last, page - 2, page - 1, page, page + 1, page + 2].filter((n) => n >= 1 && n <= last));
  const sorted = [...pages].sort((a, b) => a - b);
  const out: (number | null)[] = [];
  for (const n of sorted) {
    if (out.length && (out[out.length - 1] as number) < n - 1) out.push(null);
    out.push(n);
  }
  return out;
}
