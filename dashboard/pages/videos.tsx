/** Videos: search, sort, folders, paging, and creating a video (docs/api.md "Videos", "Folders"). */
import { useEffect, useState } from "preact/hooks";
import { call, qs } from "../api.ts";
import { ErrorBox, Field, Link, PageTitle, fieldErrors, formatDate, useAsync, useSubmit, Select, FormEnd } from "../components.tsx";
import { navigate } from "../router.ts";
import type { FolderList, Page, SlimVideo, VideoCreated } from "../../contract/api.ts";

type Folder = FolderList["folders"][number];

const SORTS = [
  { v: "created_at", l: "Created" },
  { v: "updated_at", l: "Updated" },
  { v: "title", l: "Title" },
  { v: "id", l: "ID" },
];

export function Videos({ query }: { query: URLSearchParams }) {
  const search = query.get("search") || "";
  const sort = query.get("sort") || "created_at";
  const order = query.get("order") === "asc" ? "asc" : "desc";
  const folder = query.get("folder_id") || "";
  const page = Math.max(1, Number(query.get("page")) || 1);
  const [text, setText] = useState(search);

  const setQuery = (patch: Record<string, string>) => {
    const next = { search, sort, order, folder_id: folder, page: "1", ...patch };
    navigate("/videos" + qs(next), true);
  };

  // Debounced search: the list follows typing without a request per key.
  useEffect(() => {
    if (text === search) return;
    const t = setTimeout(() => setQuery({ search: text }), 300);
    return () => clearTimeout(t);
  }, [text]);

  const list = useAsync(
    (signal) => call<Page<SlimVideo>>("GET", "/videos" + qs({ search, sort, order, folder_id: folder, page, per_page: 25 }), { signal }),
    [search, sort, order, folder, page],
  );
  const folders = useAsync((signal) => call<FolderList>("GET", "/folders", { signal }).then((r) => r.folders), []);

  return (
    <section>
      <PageTitle>Videos</PageTitle>
      <div class="grid-2">
        <div class="stack">
          {/* biome-ignore lint/a11y/useSemanticElements: a search form is the ARIA search landmark; <search> is not in Preact's JSX types */}
          <form class="filters card" role="search" onSubmit={(e) => (e.preventDefault(), setQuery({ search: text }))}>
            <Field id="v-search" label="Search titles">
              {(a) => <input {...a} type="search" value={text} onInput={(e) => setText(e.currentTarget.value)} />}
            </Field>
            <Select id="v-sort" label="Sort by" value={sort} options={SORTS} onChange={(v) => setQuery({ sort: v })} />
            <Field id="v-order" label="Order">
              {(a) => (
                <select {...a} value={order} onChange={(e) => setQuery({ order: e.currentTarget.value })}>
                  <option value="desc">Descending</option>
                  <option value="asc">Ascending</option>
                </select>
              )}
            </Field>
            <Field id="v-folder" label="Folder">
              {(a) => (
                <select {...a} value={folder} onChange={(e) => setQuery({ folder_id: e.currentTarget.value })}>
                  <option value="">All videos</option>
                  {folders.data?.map((f) => (
                    <option key={f.id} value={String(f.id)}>
                      {f.name} ({f.videos_count})
                    </option>
                  ))}
                </select>
              )}
            </Field>
          </form>
          <ErrorBox error={list.error} />
          {list.data && (
            <div class="card">
              <p aria-live="polite" class="muted">
                {list.data.total === 0 ? "No videos match." : `Showing ${list.data.from}–${list.data.to} of ${list.data.total}`}
                {list.loading ? " (updating…)" : ""}
              </p>
              <ul class="video-list" aria-label="Videos">
                {list.data.data.map((v) => (
                  <li key={v.id}>
                    <Link href={`/videos/${v.id}`}>{v.title}</Link>
                    <small>
                      #{v.id} · created {formatDate(v.created_at)} ·{" "}
                      {/* Its purpose is clear in its row (the video's); the title is not repeated, so the title names one link. */}
                      <Link href={`/videos/${v.id}/analytics`}>Analytics</Link>
                    </small>
                  </li>
                ))}
              </ul>
              {list.data.last_page > 1 && (
                <nav class="pager" aria-label="Pages">
                  <button type="button" class="secondary" disabled={page <= 1} onClick={() => setQuery({ page: String(page - 1) })}>
                    Previous
                  </button>
                  <span>
                    Page {list.data.current_page} of {list.data.last_page}
                  </span>
                  <button type="button" class="secondary" disabled={page >= list.data.last_page} onClick={() => setQuery({ page: String(page + 1) })}>
                    Next
                  </button>
                </nav>
              )}
            </div>
          )}
        </div>
        <div class="stack">
          <CreateVideo folders={folders.data || []} />
          <CreateFolder folders={folders.data || []} onCreated={folders.reload} />
        </div>
      </div>
    </section>
  );
}

function CreateVideo({ folders }: { folders: Folder[] }) {
  const [title, setTitle] = useState("");
  const [folder, setFolder] = useState("");
  const [tags, setTags] = useState("");
  const { submit, error, busy } = useSubmit(async () => {
    const body: Record<string, unknown> = { title: title.trim() };
    if (folder) body.folder_id = Number(folder);
    const t = tags
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (t.length) body.tags = t;
    const { video } = await call<VideoCreated>("POST", "/videos", { body, headers: { "Idempotency-Key": crypto.randomUUID() } });
    navigate(`/videos/${video.id}`);
  });
  const errs = fieldErrors(error);
  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-video-title">
      <h2 id="new-video-title">New video</h2>
      <Field id="nv-title" label="Title" errors={errs.title}>
        {(a) => <input {...a} required maxLength={255} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />}
      </Field>
      <Field id="nv-folder" label="Folder" errors={errs.folder_id}>
        {(a) => <FolderSelect attrs={a} folders={folders} none="No folder" value={folder} onChange={setFolder} />}
      </Field>
      <Field id="nv-tags" label="Tags" hint="Comma-separated, each at most 64 characters." errors={errs.tags}>
        {(a) => <input {...a} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}
      </Field>
      <FormEnd error={error} label="Create video" busy={busy} busyLabel="Creating…" disabled={!title.trim()} />
    </form>
  );
}

/** A folder picker; `none` labels the empty choice. */
function FolderSelect(props: { attrs: Record<string, unknown>; folders: Folder[]; none: string; value: string; onChange: (value: string) => void }) {
  return (
    <select {...props.attrs} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
      <option value="">{props.none}</option>
      {props.folders.map((f) => (
        <option key={f.id} value={String(f.id)}>
          {f.name}
        </option>
      ))}
    </select>
  );
}

function CreateFolder({ folders, onCreated }: { folders: Folder[]; onCreated: () => void }) {
  const [name, setName] = useState("");
  const [parent, setParent] = useState("");
  const { submit, error } = useSubmit(async () => {
    await call("POST", "/folders", { body: { name: name.trim(), ...(parent ? { parent_id: Number(parent) } : {}) } });
    setName("");
    onCreated();
  });
  const errs = fieldErrors(error);
  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-folder-title">
      <h2 id="new-folder-title">New folder</h2>
      <Field id="nf-name" label="Folder name" errors={errs.name}>
        {(a) => <input {...a} required value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field id="nf-parent" label="Inside" errors={errs.parent_id}>
        {(a) => <FolderSelect attrs={a} folders={folders} none="Top level" value={parent} onChange={setParent} />}
      </Field>
      <FormEnd error={error} label="Create folder" disabled={!name.trim()} class="secondary" />
    </form>
  );
}
