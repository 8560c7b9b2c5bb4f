/**
 * Enough of ClickHouse's lexer for the HTTP fixture (clickhouse-http.ts) and for tests
 * that check SQL is fit for a server: where one statement ends, where an INSERT's
 * inline rows start, which output format a query names. Strings, quoted identifiers,
 * heredocs and comments are skipped whole, so a `;` or `FORMAT` inside them counts for nothing.
 */
export interface SqlShape {
  /** The statement is an INSERT. */
  insert: boolean;
  /** Where an INSERT's inline rows start (after `FORMAT <name>` or `VALUES`), -1 when it has none. */
  dataAt: number;
  /** The format of an INSERT's inline rows: its `FORMAT` name, or "Values". */
  input?: string;
  /** The output format a top-level `FORMAT` clause names (not an INSERT's input format). */
  format?: string;
  /** Where a second statement starts after a `;`, -1 when there is none. */
  secondAt: number;
}

const WORD_START = /[A-Za-z_]/;
const WORD = /[A-Za-z0-9_$]/;

/** The end of a quoted string or identifier starting at `i` (quotes escape by doubling or by a backslash). */
function quotedEnd(sql: string, i: number): number {
  const quote = sql[i];
  for (let j = i + 1; j < sql.length; j++) {
    if (sql[j] === "\\") j++;
    else if (sql[j] === quote) {
      if (sql[j + 1] !== quote) return j + 1;
      j++;
    }
  }
  return sql.length;
}

/**
 * Enough of ClickHouse's lexer to tell one statement from two, where an INSERT's
 * inline rows start (they are data, not SQL) and which output format a query asks for.
 */
export function scanSql(sql: string): SqlShape {
  const shape: SqlShape = { insert: false, dataAt: -1, secondAt: -1 };
  let first: string | undefined;
  let depth = 0;
  let ended = false;
  let formatNext = false;
  let insertSelect = false;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (/\s/.test(c)) i++;
    else if ((c === "-" && next === "-") || (c === "#" && (next === " " || next === "!"))) {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === ";") {
      ended = true;
      i++;
    } else if (ended) {
      shape.secondAt = i;
      return shape;
    } else if (c === "'" || c === '"' || c === "`") {
      i = quotedEnd(sql, i);
      formatNext = false;
    } else if (c === "$" && /^\$[A-Za-z0-9_]*\$/.test(sql.slice(i, i + 64))) {
      const tag = /^\$[A-Za-z0-9_]*\$/.exec(sql.slice(i, i + 64))![0];
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? sql.length : end + tag.length;
    } else if (WORD_START.test(c)) {
      let j = i + 1;
      while (j < sql.length && WORD.test(sql[j]!)) j++;
      const word = sql.slice(i, j);
      const upper = word.toUpperCase();
      first ??= upper;
      shape.insert = first === "INSERT";
      if (formatNext) {
        formatNext = false;
        if (shape.insert && !insertSelect) {
          shape.dataAt = j;
          shape.input = word;
          return shape;
        }
        shape.format = word;
      } else if (depth === 0 && upper === "FORMAT" && sql.slice(j).trimStart()[0] !== "(") formatNext = true;
      else if (depth === 0 && shape.insert && !insertSelect && upper === "VALUES") {
        shape.dataAt = j;
        shape.input = "Values";
        return shape;
      } else if (depth === 0 && shape.insert && (upper === "SELECT" || upper === "WITH")) insertSelect = true;
      i = j;
    } else if (/[0-9]/.test(c)) {
      while (i < sql.length && /[0-9A-Za-z_.]/.test(sql[i]!)) i++;
      formatNext = false;
    } else {
      if ("([{".includes(c)) depth++;
      else if (")]}".includes(c)) depth--;
      formatNext = false;
      i++;
    }
  }
  return shape;
}
