import { Type, type TProperties } from "@sinclair/typebox";
import { OPTION_GROUPS } from "../../../contract/settings.ts";

/**
 * The option groups of a draft/deploy body for the OpenAPI description: each
 * group the writer may set, with its fields (types, limits, formats) and its
 * defaults. Documentation only: the schemas sit in `Unknown`, which accepts
 * anything, because bodies are partial (rule 1) and validation runs on the
 * merged result (validation.ts).
 */
export function groupsDoc(groups: readonly string[]): TProperties {
  return Object.fromEntries(
    OPTION_GROUPS.filter((g) => groups.includes(g.name)).map((g) => {
      const { required: _partial, error: _error, ...schema } = JSON.parse(JSON.stringify(g.schema)) as Record<string, unknown>;
      return [g.name, Type.Optional(Type.Unknown({ allOf: [schema], description: `Defaults: \`${JSON.stringify(g.defaults)}\`` }))];
    }),
  );
}
