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
  /** Set through the operator API only (docs/api.md "Video settings" rule 3 keeps it from the application API). */
  operator?: boolean;
  Form: (props: GroupFormProps) => JSX.Element;
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

type Blank = Group | ((count: number) => Group);

/** The field helpers of one object (a group, or one entry of a group's list). */
export interface Fields {
  check(key: string, label: string, opts?: { on?: boolean }): JSX.Element;
  text(key: string, label: string, opts?: { type?: "text" | "url"; hint?: string; empty?: string | null }): JSX.Element;
  num(key: string, label: string, opts?: { min?: number; step?: string; empty?: null }): JSX.Element;
  /** A select; `options` maps each value to its label, in order. */
  choice(key: string, label: string, options: Record<string, string>): JSX.Element;
  /** A list of numbers typed comma-separated ("0.5, 1, 2"). */
  numbers(key: string, label: string, hint?: string): JSX.Element;
  /**
   * The entries of the list at `key`, each edited by `row` with helpers bound to
   * the entry; `blank` is a new entry (or makes one from the count so far), `of`
   * names the owner of a nested list in the buttons' labels.
   */
  list(key: string, noun: string, blank: Blank, row: (r: Fields, entry: Group, i: number) => JSX.Element, of?: string): JSX.Element;
}

/**
 * Field helpers bound to the object at `prefix`: `f.text("title", "Title")`.
 * `empty` is what a cleared input stores (text: null, number: undefined).
 */
function bind(prefix: string, value: Group, set: (key: string, v: unknown) => void, err: GroupFormProps["err"]): Fields {
  const at = (key: string) => ({ path: `${prefix}.${key}`, value: value[key], err: err(`${prefix}.${key}`) });
  return {
    check: (key: string, label: string, opts: { on?: boolean } = {}) => (
      <Check {...at(key)} label={label} checked={value[key] === undefined ? !!opts.on : !!value[key]} onValue={(v) => set(key, v)} />
    ),
    text: (key: string, label: string, opts: { type?: "text" | "url"; hint?: string; empty?: string | null } = {}) => (
      <Text {...at(key)} label={label} type={opts.type} hint={opts.hint} onValue={(v) => set(key, v ?? opts.empty ?? null)} />
    ),
    num: (key: string, label: string, opts: { min?: number; step?: string; empty?: null } = {}) => (
      <Num {...at(key)} label={label} min={opts.min} step={opts.step} onValue={(v) => set(key, v ?? opts.empty)} />
    ),
    choice: (key, label, options) => <Choice {...at(key)} label={label} options={Object.entries(options)} onValue={(v) => set(key, v)} />,
    numbers: (key, label, hint) => (
      <Text
        {...at(key)}
        label={label}
        hint={hint}
        value={Array.isArray(value[key]) ? value[key].join(", ") : ""}
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
    ),
    list: (key, noun, blank, row, of) => (
      <List path={`${prefix}.${key}`} items={value[key] ?? []} onItems={(items) => set(key, items)} err={err} noun={noun} blank={blank} row={row} of={of} />
    ),
  };
}

/** Field helpers bound to one group: `f.text("title", "Title")`. */
export const fields = (group: string, p: GroupFormProps) => bind(group, p.value, p.set, p.err);

type FormBody = (f: Fields, p: GroupFormProps) => JSX.Element;

/** Declares a group's form: its body gets the field helpers bound to the group (and the raw props). */
export function groupForm(group: string, legend: string, body: FormBody): GroupForm {
  return { group, legend, Form: (p) => body(fields(group, p), p) };
}

/** The form of a group only the operator API sets (docs/api.md "Video settings" rule 3): the dashboard saves through it. */
export const operatorForm = (group: string, legend: string, body: FormBody): GroupForm => ({ ...groupForm(group, legend, body), operator: true });

/**
 * A list of entries (`events`, `actions`): rows are added with `blank` and
 * removed (the operator API the dashboard saves through replaces lists whole).
 */
function List(props: {
  path: string;
  items: Group[];
  onItems(items: Group[]): void;
  err: GroupFormProps["err"];
  noun: string;
  blank: Blank;
  row: (r: Fields, entry: Group, i: number) => JSX.Element;
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
