/**
 * The pieces every option-group form is made of. A group's form lives in its
 * own file (one component per group) and is registered in player-settings.tsx;
 * it edits only its group's object and shows the server's 422 messages beside
 * the field they name (`err("group.key")`).
 */
import type { JSX } from "preact";
import { Field } from "../../components.tsx";

export type Group = Record<string, any>;

export interface GroupFormProps {
  /** The group's current value in the form. */
  value: Group;
  /** Sets one key of the group. */
  set(key: string, value: unknown): void;
  /** The 422 messages of a dotted field path, e.g. `lead_form_options.time_s`. */
  err(path: string): string[] | undefined;
}

export interface GroupForm {
  group: string;
  legend: string;
  /** Set through the operator API only (SPEC.md "Video settings" rule 3 keeps it from the application API). */
  operator?: boolean;
  Form: (props: GroupFormProps) => JSX.Element;
}

/** The input id of a field path (the error box links to it). */
export const idOf = (path: string) => "f-" + path.replace(/[^a-z0-9_]+/gi, "-");
const num = (v: string) => (v === "" ? undefined : Number(v));

export function Check({ group, name, label, p }: { group: string; name: string; label: string; p: GroupFormProps }) {
  const path = `${group}.${name}`;
  return (
    <div class="check">
      <input type="checkbox" id={idOf(path)} checked={!!p.value[name]} onChange={(e) => p.set(name, e.currentTarget.checked)} />
      <label for={idOf(path)}>{label}</label>
      {p.err(path) && <small class="field-error">{p.err(path)!.join(" ")}</small>}
    </div>
  );
}

export function Text(props: {
  path: string;
  label: string;
  value: unknown;
  onValue(v: string | null): void;
  err?: string[];
  type?: "text" | "url";
  hint?: string;
}) {
  return (
    <Field id={idOf(props.path)} label={props.label} errors={props.err} hint={props.hint}>
      {(a) => (
        <input
          {...a}
          type={(props.type || "text") as "text"}
          value={(props.value as string) ?? ""}
          onInput={(e) => props.onValue(e.currentTarget.value === "" ? null : e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

export function Num(props: { path: string; label: string; value: unknown; onValue(v: number | undefined): void; err?: string[]; min?: number; step?: string }) {
  return (
    <Field id={idOf(props.path)} label={props.label} errors={props.err}>
      {(a) => (
        <input
          {...a}
          type="number"
          min={props.min ?? 0}
          step={props.step ?? "any"}
          value={(props.value as number) ?? ""}
          onInput={(e) => props.onValue(num(e.currentTarget.value))}
        />
      )}
    </Field>
  );
}

export function Choice(props: {
  path: string;
  label: string;
  value: unknown;
  options: [value: string, label: string][];
  onValue(v: string): void;
  err?: string[];
}) {
  return (
    <Field id={idOf(props.path)} label={props.label} errors={props.err}>
      {(a) => (
        <select {...a} value={(props.value as string) ?? props.options[0]![0]} onChange={(e) => props.onValue(e.currentTarget.value)}>
          {props.options.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** Field helpers bound to one group: `f.text("title", "Title")`. */
export function fields(group: string, p: GroupFormProps) {
  const path = (key: string) => `${group}.${key}`;
  return {
    check: (key: string, label: string) => <Check group={group} name={key} label={label} p={p} />,
    text: (key: string, label: string, opts: { type?: "text" | "url"; hint?: string } = {}) => (
      <Text path={path(key)} label={label} value={p.value[key]} onValue={(v) => p.set(key, v)} err={p.err(path(key))} {...opts} />
    ),
    num: (key: string, label: string, opts: { min?: number; step?: string } = {}) => (
      <Num path={path(key)} label={label} value={p.value[key]} onValue={(v) => p.set(key, v)} err={p.err(path(key))} {...opts} />
    ),
    choice: (key: string, label: string, options: [string, string][]) => (
      <Choice path={path(key)} label={label} value={p.value[key]} options={options} onValue={(v) => p.set(key, v)} err={p.err(path(key))} />
    ),
  };
}

/** Declares a group's form: its body gets the field helpers bound to the group (and the raw props). */
export function groupForm(
  group: string,
  legend: string,
  body: (f: ReturnType<typeof fields>, p: GroupFormProps) => JSX.Element,
  opts: { operator?: boolean } = {},
): GroupForm {
  return { group, legend, ...opts, Form: (p) => body(fields(group, p), p) };
}

/**
 * A list of entries in a group (`events`, `actions`): each row's fields come
 * from `row`, rows are added with `blank` and removed (the operator API the
 * dashboard saves through replaces lists whole).
 */
export function List(props: {
  group: string;
  list: string;
  p: GroupFormProps;
  noun: string;
  blank: Group;
  row(entry: Group, at: (key: string) => string, set: (key: string, value: unknown) => void, i: number): JSX.Element;
}) {
  const { group, list, p, noun } = props;
  const items: Group[] = p.value[list] ?? [];
  const setItem = (i: number, key: string, value: unknown) =>
    p.set(
      list,
      items.map((item, j) => (j === i ? { ...item, [key]: value } : item)),
    );
  return (
    <div class="stack">
      {items.map((entry, i) => (
        <div class="item-block" key={i}>
          {props.row(
            entry,
            (key) => `${group}.${list}.${i}.${key}`,
            (key, value) => setItem(i, key, value),
            i,
          )}
          <button
            type="button"
            class="link"
            onClick={() =>
              p.set(
                list,
                items.filter((_, j) => j !== i),
              )
            }
            aria-label={`Remove ${noun} ${i + 1}`}
          >
            Remove {noun} {i + 1}
          </button>
        </div>
      ))}
      <button type="button" class="secondary" onClick={() => p.set(list, [...items, props.blank])}>
        Add {noun}
      </button>
    </div>
  );
}

/** Check boxes that edit a list of names (`networks`, `fields`); its legend is for screen readers. */
export function Choices(props: {
  path: string;
  legend: string;
  options: [value: string, label: string][];
  chosen: string[];
  onValue(v: string[]): void;
  err?: string[];
}) {
  const toggle = (v: string, on: boolean) => props.onValue(on ? [...props.chosen.filter((c) => c !== v), v] : props.chosen.filter((c) => c !== v));
  return (
    <>
      <fieldset class="checks-grid choices">
        <legend class="sr-only">{props.legend}</legend>
        {props.options.map(([v, label]) => (
          <div class="check" key={v}>
            <input type="checkbox" id={idOf(`${props.path}.${v}`)} checked={props.chosen.includes(v)} onChange={(e) => toggle(v, e.currentTarget.checked)} />
            <label for={idOf(`${props.path}.${v}`)}>{label}</label>
          </div>
        ))}
      </fieldset>
      {props.err && <small class="field-error">{props.err.join(" ")}</small>}
    </>
  );
}
