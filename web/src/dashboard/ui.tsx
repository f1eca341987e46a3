// Small shared pieces: links for the router, loading/error/empty states, copy buttons, money and
// dates, and useAction() for a button that calls the API and shows what went wrong.
import { useState, type FormEvent, type MouseEvent, type ReactNode } from "react";
import { ApiError, type Loaded } from "./api.ts";
import type { FieldProblem } from "./errors.ts";
import { navigate } from "./router.ts";

export function Link(props: {
  to: string;
  children: ReactNode;
  className?: string;
  "aria-current"?: "page" | undefined;
}) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.to);
  };
  return (
    <a
      href={props.to}
      onClick={onClick}
      className={props.className}
      aria-current={props["aria-current"]}
    >
      {props.children}
    </a>
  );
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p className="muted loading" role="status">
      <span className="spinner" aria-hidden="true" /> {what}…
    </p>
  );
}

export function ErrorNote({ error }: { error: { message: string } | string | null }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {typeof error === "string" ? error : error.message}
    </p>
  );
}

/** What to do when a list is empty: a sentence, and the `till` command that fills it. */
export function Empty({
  title,
  command,
  children,
}: {
  title: string;
  command?: string;
  children?: ReactNode;
}) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      {children}
      {command ? (
        <div className="command">
          <code>{command}</code>
          <CopyButton text={command} label="Copy command" />
        </div>
      ) : null}
    </div>
  );
}

/** A 404 from an endpoint this server does not have (yet). */
export function Unavailable({ what }: { what: string }) {
  return (
    <div className="empty">
      <h2>{what} are not available on this server</h2>
      <p className="muted">
        This till server does not serve this API yet. Upgrade till to a version that includes it.
      </p>
    </div>
  );
}

/** Renders a loaded resource: spinner (first load only), error (or "unavailable" for a 404), or the content. */
export function Resource<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T>;
  what: string;
  children: (data: T) => ReactNode;
}) {
  if (loaded.error)
    return (loaded.error as ApiError).status === 404 ? (
      <Unavailable what={what} />
    ) : (
      <ErrorNote error={loaded.error} />
    );
  // A reload keeps showing what was loaded until the answer comes, instead of flashing a spinner.
  if (loaded.data === null) return <Loading what={`Loading ${what.toLowerCase()}`} />;
  return <>{children(loaded.data)}</>;
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Without clipboard permission (plain http on a LAN address) select-and-copy still works.
      window.prompt("Copy this:", text);
    }
    setDone(true);
    setTimeout(() => setDone(false), 1500);
  };
  return (
    <button type="button" className="ghost small" onClick={() => void copy()} aria-label={label}>
      {done ? "Copied" : "Copy"}
    </button>
  );
}

export { money, when } from "./format.ts";

export function Badge({
  children,
  tone = "neutral",
}: {
  children: ReactNode;
  tone?: "neutral" | "good" | "warn" | "bad";
}) {
  return <span className={`badge ${tone}`}>{children}</span>;
}

/**
 * Runs an async action for a button or form, tracking busy state and what went wrong. A 422's
 * problems are kept by field: a form shows each beside its field (fieldError) and FormActions shows
 * only what no field took, so a sentence appears once, where the person has to act.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fields, setFields] = useState<FieldProblem[]>([]);
  // Paths a field asked for during this render; read by FormActions, which renders after them.
  const claimed = new Set<string>();
  const run = async (fn: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setFields([]);
    try {
      await fn();
      return true;
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
      setFields(e instanceof ApiError ? e.fields : []);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (path: string): string | undefined => {
    claimed.add(path);
    const found = fields.filter((f) => f.path === path);
    return found.length > 0 ? found.map((f) => f.message).join(" ") : undefined;
  };
  /** The error minus the problems a field shows; null when every problem has its field. */
  const unclaimedError = (): string | null => {
    if (fields.length === 0) return error;
    const rest = fields.filter((f) => !claimed.has(f.path));
    return rest.length > 0 ? rest.map((f) => f.message).join(" ") : null;
  };
  return { busy, error, fieldError, unclaimedError, run, setError };
}

/** A form's submit handler; an async handler reports its own errors (useAction's run). */
export function submit(handler: (data: FormData, form: HTMLFormElement) => unknown) {
  return (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    void handler(new FormData(e.currentTarget), e.currentTarget);
  };
}

export function Field(props: {
  label: string;
  name: string;
  type?: string;
  required?: boolean;
  placeholder?: string;
  defaultValue?: string;
  autoComplete?: string;
  min?: number;
  step?: string;
  inputMode?: "decimal" | "numeric";
  /** The API's sentence about this field, shown under it and announced with it. */
  error?: string | undefined;
}) {
  const { label, error, ...input } = props;
  const id = `f-${props.name}`;
  return (
    <FieldShell label={label} id={id} error={error}>
      <input
        id={id}
        {...input}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
    </FieldShell>
  );
}

/**
 * A label, its control (given with `id`) and the API's sentence under it. The sentence sits outside
 * the <label> so it describes the control (aria-describedby) without becoming part of its name.
 */
export function FieldShell({
  label,
  id,
  error,
  children,
}: {
  label: string;
  id: string;
  error: string | undefined;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/** A sentence under a field; its id goes in the field's aria-describedby. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  return message ? (
    <span className="field-error" id={id}>
      {message}
    </span>
  ) : null;
}

/** A create form's footer: its error, the submit button (`busyLabel` while the request runs), Cancel. */
export function FormActions({
  action,
  label,
  busyLabel,
  onCancel,
}: {
  action: {
    busy: boolean;
    error: { message: string } | string | null;
    unclaimedError?: () => string | null;
  };
  label: string;
  busyLabel?: string;
  onCancel: () => void;
}) {
  return (
    <>
      <ErrorNote error={action.unclaimedError ? action.unclaimedError() : action.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={action.busy}>
          {action.busy && busyLabel ? busyLabel : label}
        </button>
        <button type="button" className="ghost" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      <div className="actions">{children}</div>
    </header>
  );
}

export type Column<T> = [heading: string, cell: (row: T) => ReactNode];

export function Table<T extends { id: string }>({
  rows,
  columns,
  label,
}: {
  rows: T[];
  columns: Column<T>[];
  label?: string;
}) {
  return (
    <div className="table-wrap">
      <table className="table" aria-label={label}>
        <thead>
          <tr>
            {columns.map(([h]) => (
              <th key={h}>{h || <span className="sr-only">Actions</span>}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id}>
              {columns.map(([h, cell]) => (
                <td key={h}>{cell(r)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A labelled select with the API's sentence about it, like Field. */
export function SelectField({
  label,
  name,
  options,
  defaultValue,
  error,
}: {
  label: string;
  name: string;
  options: [value: string, label: string][];
  defaultValue?: string | undefined;
  error?: string | undefined;
}) {
  const id = `f-${name}`;
  return (
    <FieldShell label={label} id={id} error={error}>
      <select
        id={id}
        name={name}
        defaultValue={defaultValue}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      >
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}
