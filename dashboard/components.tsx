/** Small shared pieces: links, field errors, copy buttons, progress, async state. */
import type { ComponentChildren, JSX } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { HttpError } from "./api.ts";
import { BASE, navigate, navigated } from "./router.ts";

export function Link(props: { href: string; children: ComponentChildren; class?: string; "aria-current"?: "page" | undefined }) {
  const href = props.href.startsWith(BASE) ? props.href : BASE + props.href;
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} class={props.class} onClick={onClick} aria-current={props["aria-current"]}>
      {props.children}
    </a>
  );
}

/** An error box for a failed call; focusable so keyboard and screen-reader users land on it. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

/** A labelled input with its 422 messages tied by aria-describedby. */
export function Field(props: {
  id: string;
  label: string;
  errors?: string[];
  hint?: string;
  children: (attrs: { id: string; "aria-invalid"?: "true"; "aria-describedby"?: string }) => JSX.Element;
}) {
  const described = [props.hint ? `${props.id}-hint` : "", props.errors?.length ? `${props.id}-err` : ""].filter(Boolean).join(" ");
  return (
    <div class={"field" + (props.errors?.length ? " invalid" : "")}>
      <label for={props.id}>{props.label}</label>
      {props.children({ id: props.id, "aria-invalid": props.errors?.length ? "true" : undefined, "aria-describedby": described || undefined })}
      {props.hint && (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
      {props.errors?.length ? (
        <small id={`${props.id}-err`} class="field-error" data-field-error={props.id}>
          {props.errors.join(" ")}
        </small>
      ) : null}
    </div>
  );
}

/**
 * A form's end: the error no field names (field errors show beside their
 * fields), then the submit button, which says `busyLabel` while it works.
 */
export function FormEnd(props: { error: unknown; label: string; busy?: boolean; busyLabel?: string; disabled?: boolean; class?: string; field?: string }) {
  const named = fieldErrors(props.error);
  // With `field`, only that field's message shows beside it; else any field's does.
  const placed = props.field ? Boolean(named[props.field]) : Object.keys(named).length > 0;
  const unplaced = props.error && !placed ? props.error : undefined;
  return (
    <>
      <ErrorBox error={unplaced} />
      <button type="submit" class={props.class} disabled={props.busy || props.disabled}>
        {props.busy ? props.busyLabel : props.label}
      </button>
    </>
  );
}

/** A labelled select over `{v, l}` options (value, label). */
export function Select(props: {
  id: string;
  label: string;
  value: string;
  options: readonly { v: string; l: string }[];
  onChange(v: string): void;
  errors?: string[];
  hint?: string;
}) {
  return (
    <Field id={props.id} label={props.label} errors={props.errors} hint={props.hint}>
      {(a) => (
        <select {...a} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
          {props.options.map((o) => (
            <option key={o.v} value={o.v}>
              {o.l}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard API needs a secure context; fall back to the selection.
      const area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.className = "offscreen";
      document.body.appendChild(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 2000);
  };
  return (
    <button type="button" class="secondary" onClick={copy}>
      {done ? "Copied" : label}
      <span class="sr-only" aria-live="polite">
        {done ? " to the clipboard" : ""}
      </span>
    </button>
  );
}

/** A secret shown once (a new token, an invite link): a read-only field that selects itself on focus, and its Copy button. */
export function OneTimeSecret({ id, label, value, copyLabel }: { id: string; label: string; value: string; copyLabel: string }) {
  return (
    <div class="row">
      <label for={id} class="sr-only">
        {label}
      </label>
      <input id={id} class="mono grow" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
      <CopyButton text={value} label={copyLabel} />
    </div>
  );
}

export function Progress({ value, label, id }: { value: number; label: string; id: string }) {
  const pct = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div class="progress">
      <label for={id}>{label}</label>
      <progress id={id} max={100} value={pct} aria-valuetext={`${pct} %`} />
      <span class="progress-pct" data-progress-pct>
        {pct} %
      </span>
    </div>
  );
}

/** Loads data with `load`, re-running when `deps` change; `reload` re-runs it. */
export function useAsync<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): { data?: T; error?: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [n, setN] = useState(0);
  useEffect(() => {
    const ctrl = new AbortController();
    setState((s) => ({ ...s, loading: true, error: undefined }));
    load(ctrl.signal).then(
      (data) => !ctrl.signal.aborted && setState({ data, loading: false }),
      (error) => !ctrl.signal.aborted && setState({ error, loading: false }),
    );
    return () => ctrl.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, n]);
  const reload = useCallback(() => setN((x) => x + 1), []);
  return { ...state, reload };
}

/**
 * A form's submit handler around `action`: it clears the last error, is `busy` while the
 * action runs, and keeps what the action throws in `error` for the form to show.
 * `setError` lets the form's other buttons (a row's Remove) report into the same place.
 */
export function useSubmit(action: () => Promise<void>): {
  submit: (e: Event) => Promise<void>;
  error: unknown;
  setError: (err: unknown) => void;
  busy: boolean;
} {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { submit, error, setError, busy };
}

/** A table's header row: the text columns first, then the numeric ones (right-aligned), then a column of row actions. */
type TableHeadProps = { text: ComponentChildren[]; numeric?: ComponentChildren[]; actions?: boolean };

export function TableHead({ text, numeric = [], actions }: TableHeadProps) {
  return (
    <thead>
      <tr>
        {text.map((h, i) => (
          <th key={`t${i}`} scope="col">
            {h}
          </th>
        ))}
        {numeric.map((h, i) => (
          <th key={`n${i}`} scope="col" class="num">
            {h}
          </th>
        ))}
        {actions && (
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/** A table in its scrolling wrapper: the header row as TableHead draws it, then `children` as the body's rows. */
export function DataTable({ label, class: className, children, ...head }: TableHeadProps & { label?: string; class?: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table class={className} aria-label={label}>
        <TableHead {...head} />
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A cell with a button acting on its row; `name` tells screen readers which row. */
export function ActionCell(props: { label: string; name: string; onClick(): void; danger?: boolean }) {
  return (
    <td>
      <button type="button" class={props.danger ? "danger" : "secondary"} onClick={props.onClick} aria-label={props.name}>
        {props.label}
      </button>
    </td>
  );
}

/** A cell with a bar of `value` against `max` (at least a sliver), and `shown` written beside it. */
export function BarCell({ value, max, shown }: { value: number; max: number; shown: ComponentChildren }) {
  return (
    <td>
      <span class="bar" style={{ width: `${Math.max(2, (value / max) * 100)}%` }} aria-hidden="true" />
      <span class="bar-num">{shown}</span>
    </td>
  );
}

/** Focuses the page heading after navigation, so screen readers announce the new page. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${ref.current?.textContent || "Dashboard"} · Frameline`;
    if (navigated) ref.current?.focus();
  }, []);
  return (
    <h1 tabIndex={-1} ref={ref}>
      {children}
    </h1>
  );
}

export const fieldErrors = (error: unknown): Record<string, string[]> => (error instanceof HttpError ? error.fieldErrors : {});

export const formatDate = (iso: string | null | undefined) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "—";

export const formatBytes = (n: number) =>
  n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : n < 1073741824 ? `${(n / 1048576).toFixed(1)} MB` : `${(n / 1073741824).toFixed(2)} GB`;

/** Previous / "Page n of m" / Next. */
export function Pager({ label, page, last, onPage }: { label: string; page: number; last: number; onPage: (page: number) => void }) {
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {last}
      </span>
      <button type="button" class="secondary" disabled={page >= last} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
