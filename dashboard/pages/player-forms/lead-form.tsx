import { fields, type GroupForm, idOf } from "./kit.tsx";

const FIELDS: [string, string][] = [
  ["first_name", "First name"],
  ["last_name", "Last name"],
  ["phone", "Phone"],
];

/** lead_form_options: the form shown inside the player at a time. */
export const leadFormForm: GroupForm = {
  group: "lead_form_options",
  legend: "Lead form",
  Form: (p) => {
    const f = fields("lead_form_options", p);
    const chosen: string[] = p.value.fields ?? ["email"];
    const toggle = (n: string, on: boolean) => p.set("fields", on ? [...chosen.filter((c) => c !== n), n] : chosen.filter((c) => c !== n));
    return (
      <>
        {f.check("enabled", "Ask for the viewer's email")}
        {f.num("time_s", "Show at (s)")}
        {f.text("title", "Title")}
        <fieldset class="checks-grid choices">
          <legend class="sr-only">Fields besides the email</legend>
          {FIELDS.map(([n, label]) => (
            <div class="check" key={n}>
              <input
                type="checkbox"
                id={idOf(`lead_form_options.fields.${n}`)}
                checked={chosen.includes(n)}
                onChange={(e) => toggle(n, e.currentTarget.checked)}
              />
              <label for={idOf(`lead_form_options.fields.${n}`)}>{label}</label>
            </div>
          ))}
        </fieldset>
        {p.err("lead_form_options.fields") && <small class="field-error">{p.err("lead_form_options.fields")!.join(" ")}</small>}
        <div class="row item">
          {f.text("button_text", "Button text")}
          {f.text("skip_text", "Skip text")}
        </div>
        {f.check("skippable", "Viewers may skip it")}
      </>
    );
  },
};
