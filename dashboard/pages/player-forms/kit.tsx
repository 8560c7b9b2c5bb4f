/**
 * The pieces every option-group form is made of. A group's form lives in its
 * own file (one component per group) and is registered in player-settings.tsx;
 * it edits only its group's object and shows the server's 422 messages beside
 * the field they name (`err("group.key")`). Forms are typed by the option-group
 * registry (contract/settings.ts): a key names a field of the group, a select
 * offers every value the registry allows, a list's rows are its entries.
 */
import type { JSX } from "preact";
import type { GroupName, PartialSettings, Settings } from "../../../contract/settings.ts";
import { Field } from "../../components.tsx";
import { NextVideo } from "./next-video.tsx";

/** The keys of `T` whose values are `V` (optional fields included). */
export type KeysOf<T, V> = { [K in keyof T]-?: NonNullable<T[K]> extends V ? K : never }[keyof T] & string;
/** The entry type of a list field. */
type EntryOf<List> = NonNullable<List> extends readonly (infer Entry)[] ? Entry : never;

/** Sets one field of one group in the form's settings. */
export type SetField = <G extends GroupName, K extends keyof Settings[G]>(group: G, key: K, value: Settings[G][K] | undefined) => void;

export interface GroupFormProps<G extends GroupName> {
  /** The group's current value in the form (a group stored before a field existed lacks it). */
  value: Partial<Settings[G]>;
  /** Sets one key of the group. */
  set<K extends keyof Settings[G]>(key: K, value: Settings[G][K] | undefined): void;
  /** The 422 messages of a dotted field path, e.g. `lead_form_options.time_s`. */
  err(path: string): string[] | undefined;
}

/** A group's form as the settings page shows it: bound to the whole form, whatever its group. */
export interface GroupForm {
  group: GroupName;
  legend: string;
  /** Set through the operator API only (docs/api.md "Video settings" rule 3 keeps it from the application API). */
  operator?: boolean;
  Form: (props: { settings: PartialSettings; set: SetField; err(path: string): string[] | undefined }) => JSX.Element;
}

/** The input id of a field path (the error box links to it). */
export const idOf = (path: string) => "f-" + path.replace(/[^a-z0-9_]+/gi, "-");
const num = (v: string) => (v === "" ? undefined : Number(v));

function Check(props: { path: string; label: string; checked: boolean; onValue(v: boolean): void; err?: string[] }) {
  return (
    <div class="check">
      <input type="checkbox" id={idOf(props.path)} checked={props.checked} onChange={(e) => props.onValue(e.currentTarget.checked)} />
      <label for={idOf(props.path)}>{props.label}</label>
      {props.err && <small class="field-error">{props.err.join(" ")}</small>}
    </div>
  );
}

function Text(props: { path: string; label: string; value: unknown; onValue(v: string | null): void; err?: string[]; type?: "text" | "url"; hint?: string }) {
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

function Num(props: { path: string; label: string; value: unknown; onValue(v: number | undefined): void; err?: string[]; min?: number; step?: string }) {
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

function Choice(props: { path: string; label: string; value: unknown; options: [value: string, label: string][]; onValue(v: string): void; err?: string[] }) {
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

/** What a cleared text input stores: null, or (for a field that holds no null) a string. */
type TextEmpty<V> = null extends V ? { empty?: string | null } : { empty: string };

/** The field helpers of one object `T` (a group, or one entry of a group's list). */
export interface Fields<T> {
  check(key: KeysOf<T, boolean>, label: string, opts?: { on?: boolean }): JSX.Element;
  text<K extends KeysOf<T, string>>(key: K, label: string, ...opts: null extends T[K] ? [opts?: TextOptions<T[K]>] : [opts: TextOptions<T[K]>]): JSX.Element;
  /** `empty: null` stores null for a cleared input, where the field takes null. */
  num<K extends KeysOf<T, number>>(key: K, label: string, opts?: { min?: number; step?: string; empty?: null extends T[K] ? null : never }): JSX.Element;
  /** A select; `options` labels every value the field takes, in the order shown. */
  choice<K extends KeysOf<T, string>>(key: K, label: string, options: Record<NonNullable<T[K]> & string, string>): JSX.Element;
  /** A list of numbers typed comma-separated ("0.5, 1, 2"). */
  numbers(key: KeysOf<T, number[]>, label: string, hint?: string): JSX.Element;
  /** A select of the workspace's videos, storing a video's code (null for none): a funnel's next video. */
  video(key: KeysOf<T, string>, label: string): JSX.Element;
  /**
   * The entries of the list at `key`, each edited by `row` with helpers bound to
   * the entry; `blank` is a new entry (or makes one from the count so far), `of`
   * names the owner of a nested list in the buttons' labels.
   */
  list<K extends KeysOf<T, readonly unknown[]>>(
    key: K,
    noun: string,
    blank: EntryOf<T[K]> | ((count: number) => EntryOf<T[K]>),
    row: (r: Fields<EntryOf<T[K]>>, entry: EntryOf<T[K]>, i: number) => JSX.Element,
    of?: string,
  ): JSX.Element;
}

type TextOptions<V> = { type?: "text" | "url"; hint?: string } & TextEmpty<V>;

/** An object the helpers edit, read field by field; the typed `Fields` face says which fields. */
type Fieldset = Record<string, unknown>;
type Blank = Fieldset | ((count: number) => Fieldset);
type Row = (r: FieldsetHelpers, entry: Fieldset, i: number) => JSX.Element;

/** The helpers as they work: any key of a `Fieldset`. */
interface FieldsetHelpers {
  check(key: string, label: string, opts?: { on?: boolean }): JSX.Element;
  text(key: string, label: string, opts?: { type?: "text" | "url"; hint?: string; empty?: string | null }): JSX.Element;
  num(key: string, label: string, opts?: { min?: number; step?: string; empty?: null }): JSX.Element;
  choice(key: string, label: string, options: Record<string, string>): JSX.Element;
  numbers(key: string, label: string, hint?: string): JSX.Element;
  video(key: string, label: string): JSX.Element;
  list(key: string, noun: string, blank: Blank, row: Row, of?: string): JSX.Element;
}

/**
 * Field helpers bound to the object at `prefix`: `f.text("title", "Title")`.
 * `empty` is what a cleared input stores (text: null, number: undefined).
 */
function bind(prefix: string, value: Fieldset, set: (key: string, v: unknown) => void, err: (path: string) => string[] | undefined): FieldsetHelpers {
  const at = (key: string) => ({ path: `${prefix}.${key}`, value: value[key], err: err(`${prefix}.${key}`) });
  return {
    check: (key, label, opts = {}) => (
      <Check {...at(key)} label={label} checked={value[key] === undefined ? !!opts.on : !!value[key]} onValue={(v) => set(key, v)} />
    ),
    text: (key, label, opts = {}) => <Text {...at(key)} label={label} type={opts.type} hint={opts.hint} onValue={(v) => set(key, v ?? opts.empty ?? null)} />,
    num: (key, label, opts = {}) => <Num {...at(key)} label={label} min={opts.min} step={opts.step} onValue={(v) => set(key, v ?? opts.empty)} />,
    choice: (key, label, options) => <Choice {...at(key)} label={label} options={Object.entries(options)} onValue={(v) => set(key, v)} />,
    video: (key, label) => {
      const { path, ...rest } = at(key);
      return <NextVideo id={idOf(path)} label={label} {...rest} onValue={(v) => set(key, v)} />;
    },
    numbers: (key, label, hint) => {
      const list = value[key];
      return (
        <Text
          {...at(key)}
          label={label}
          hint={hint}
          value={Array.isArray(list) ? list.join(", ") : ""}
          onValue={(v) =>
            set(
              key,
              (v ?? "")
                .split(",")
                .map((s) => s.trim())
                .filter(Boolean)
                .map(Number),
            )
          }
        />
      );
    },
    list: (key, noun, blank, row, of) => {
      const items = value[key];
      return (
        <List
          path={`${prefix}.${key}`}
          items={Array.isArray(items) ? items : []}
          onItems={(next) => set(key, next)}
          err={err}
          noun={noun}
          blank={blank}
          row={row}
          of={of}
        />
      );
    },
  };
}

type FormBody<G extends GroupName> = (f: Fields<Settings[G]>, p: GroupFormProps<G>) => JSX.Element;

/** Declares a group's form: its body gets the field helpers bound to the group (and the group's props). */
export function groupForm<G extends GroupName>(group: G, legend: string, body: FormBody<G>): GroupForm {
  return {
    group,
    legend,
    Form: ({ settings, set, err }) => {
      const value: Partial<Settings[G]> = settings[group] ?? {};
      const setKey = <K extends keyof Settings[G]>(key: K, v: Settings[G][K] | undefined) => set(group, key, v);
      // The helpers read and write any field of a Fieldset; the form sees them through `Fields<Settings[G]>`, which
      // narrows each key and value to the group's. TS cannot derive that face from the untyped helpers, hence the casts.
      const f = bind(group, value as Fieldset, setKey as (key: string, v: unknown) => void, err) as unknown as Fields<Settings[G]>;
      return body(f, { value, set: setKey, err });
    },
  };
}

/** The form of a group only the operator API sets (docs/api.md "Video settings" rule 3): the dashboard saves through it. */
export const operatorForm = <G extends GroupName>(group: G, legend: string, body: FormBody<G>): GroupForm => ({
  ...groupForm(group, legend, body),
  operator: true,
});

/**
 * A list of entries (`events`, `actions`): rows are added with `blank` and
 * removed (the operator API the dashboard saves through replaces lists whole).
 */
function List(props: {
  path: string;
  items: Fieldset[];
  onItems(items: Fieldset[]): void;
  err: (path: string) => string[] | undefined;
  noun: string;
  blank: Blank;
  row: Row;
  of?: string;
}) {
  const { items, onItems, noun } = props;
  const of = props.of ? ` of ${props.of}` : "";
  const setItem = (i: number, key: string, value: unknown) => onItems(items.map((item, j) => (j === i ? { ...item, [key]: value } : item)));
  return (
    <div class="stack">
      {items.map((entry, i) => (
        <div class="item-block" key={i}>
          {props.row(
            bind(`${props.path}.${i}`, entry, (key, value) => setItem(i, key, value), props.err),
            entry,
            i,
          )}
          <button type="button" class="link" onClick={() => onItems(items.filter((_, j) => j !== i))} aria-label={`Remove ${noun} ${i + 1}${of}`}>
            Remove {noun} {i + 1}
          </button>
        </div>
      ))}
      <button type="button" class="secondary" onClick={() => onItems([...items, typeof props.blank === "function" ? props.blank(items.length) : props.blank])}>
        Add {noun}
        {props.of ? ` to ${props.of}` : ""}
      </button>
    </div>
  );
}

/** Check boxes that edit a list of names (`networks`, `fields`), one per key of `options`, in its order; its legend is for screen readers. */
export function Choices<V extends string>(props: {
  path: string;
  legend: string;
  options: Record<V, string>;
  chosen: readonly V[];
  onValue(v: V[]): void;
  err?: string[];
}) {
  const toggle = (v: V, on: boolean) => props.onValue(on ? [...props.chosen.filter((c) => c !== v), v] : props.chosen.filter((c) => c !== v));
  // Object.entries types its keys as string; they are the options' own, each a V.
  const options = Object.entries(props.options) as [V, string][];
  return (
    <>
      <fieldset class="checks-grid choices">
        <legend class="sr-only">{props.legend}</legend>
        {options.map(([v, label]) => (
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
