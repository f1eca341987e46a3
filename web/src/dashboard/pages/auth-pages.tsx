// Signed-out pages: sign in, sign up, forgotten password, set a new password from the mailed link,
// and the landing page after an email verification link.
import { useState, type ReactNode } from "react";
import { authClient, unwrap, useServerInfo } from "../auth.ts";
import { navigate, useLocation } from "../router.ts";
import { ErrorNote, Field, Link, submit, useAction } from "../ui.tsx";

function AuthCard({
  title,
  children,
  footer,
}: {
  title: string;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <main className="auth">
      <div className="auth-card">
        <div className="brand big">
          <span className="logo" aria-hidden="true">
            t
          </span>{" "}
          till
        </div>
        <h1>{title}</h1>
        {children}
        {footer ? <div className="auth-footer">{footer}</div> : null}
      </div>
    </main>
  );
}

const PROVIDER_NAMES: Record<string, string> = {
  github: "GitHub",
  google: "Google",
  discord: "Discord",
  gitlab: "GitLab",
  microsoft: "Microsoft",
  apple: "Apple",
};

function SocialButtons({ next }: { next: string }) {
  const info = useServerInfo();
  const action = useAction();
  if (!info || info.social.length === 0) return null;
  return (
    <div className="social">
      {info.social.map((id) => (
        <button
          key={id}
          type="button"
          className="secondary wide"
          disabled={action.busy}
          onClick={() =>
            void action.run(() =>
              unwrap(authClient.signIn.social({ provider: id, callbackURL: next })),
            )
          }
        >
          Continue with {PROVIDER_NAMES[id] ?? id}
        </button>
      ))}
      <ErrorNote error={action.error} />
      <div className="divider">
        <span>or</span>
      </div>
    </div>
  );
}

export function SignIn() {
  const { query } = useLocation();
  const next = query.get("next") ?? "/";
  const action = useAction();
  const onSubmit = submit((data) =>
    action.run(async () => {
      await unwrap(
        authClient.signIn.email({
          email: String(data.get("email")),
          password: String(data.get("password")),
        }),
      );
      navigate(next, { replace: true });
    }),
  );
  return (
    <AuthCard
      title="Sign in"
      footer={
        <>
          <Link to="/forgot-password">Forgot your password?</Link> · No account?{" "}
          <Link to="/sign-up">Sign up</Link>
        </>
      }
    >
      <SocialButtons next={next} />
      <form onSubmit={onSubmit} className="stack">
        <Field label="Email" name="email" type="email" required autoComplete="email" />
        <Field
          label="Password"
          name="password"
          type="password"
          required
          autoComplete="current-password"
        />
        <ErrorNote error={action.error} />
        <button type="submit" className="primary wide" disabled={action.busy}>
          {action.busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </AuthCard>
  );
}

export function SignUp() {
  const info = useServerInfo();
  const action = useAction();
  const onSubmit = submit((data) =>
    action.run(async () => {
      const email = String(data.get("email"));
      const result = await unwrap(
        authClient.signUp.email({
          email,
          password: String(data.get("password")),
          name: String(data.get("name")),
          callbackURL: "/verified",
        }),
      );
      // With verification required there is no session yet: say where the link went.
      navigate(
        result && "token" in result && result.token
          ? "/"
          : `/verify-email?email=${encodeURIComponent(email)}`,
        { replace: true },
      );
    }),
  );
  return (
    <AuthCard
      title="Create your account"
      footer={
        <>
          Already have an account? <Link to="/sign-in">Sign in</Link>
        </>
      }
    >
      {info && !info.sign_up ? (
        <p className="error">
          Sign-up is closed on this server. Ask an administrator for an invitation.
        </p>
      ) : null}
      <SocialButtons next="/" />
      <form onSubmit={onSubmit} className="stack">
        <Field label="Name" name="name" required autoComplete="name" />
        <Field label="Email" name="email" type="email" required autoComplete="email" />
        <Field
          label="Password"
          name="password"
          type="password"
          required
          autoComplete="new-password"
          placeholder="At least 8 characters"
        />
        <ErrorNote error={action.error} />
        <button type="submit" className="primary wide" disabled={action.busy}>
          {action.busy ? "Creating…" : "Create account"}
        </button>
      </form>
    </AuthCard>
  );
}

export function VerifyEmail() {
  const { query } = useLocation();
  const email = query.get("email") ?? "";
  const action = useAction();
  const resend = () =>
    action.run(() => unwrap(authClient.sendVerificationEmail({ email, callbackURL: "/verified" })));
  return (
    <AuthCard title="Check your inbox" footer={<Link to="/sign-in">Back to sign in</Link>}>
      <p>
        We sent a verification link to <strong>{email || "your email address"}</strong>. Open it to
        finish signing up.
      </p>
      <p className="muted">
        Running locally without SMTP? The link is in the server log and in <code>till emails</code>.
      </p>
      {email ? (
        <button
          type="button"
          className="secondary"
          onClick={() => void resend()}
          disabled={action.busy}
        >
          Send the link again
        </button>
      ) : null}
      <ErrorNote error={action.error} />
    </AuthCard>
  );
}

export function Verified() {
  const { query } = useLocation();
  const error = query.get("error");
  return (
    <AuthCard
      title={error ? "That link did not work" : "Email verified"}
      footer={<Link to="/">Continue to the dashboard</Link>}
    >
      {error ? (
        <p className="error">
          The verification link is invalid or has expired ({error}). Sign in to get a new one.
        </p>
      ) : (
        <p>Thanks — your email address is confirmed.</p>
      )}
    </AuthCard>
  );
}

export function ForgotPassword() {
  const action = useAction();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const onSubmit = submit((data) =>
    action.run(async () => {
      const email = String(data.get("email"));
      await unwrap(authClient.requestPasswordReset({ email, redirectTo: "/reset-password" }));
      setSentTo(email);
    }),
  );
  return (
    <AuthCard title="Reset your password" footer={<Link to="/sign-in">Back to sign in</Link>}>
      {sentTo ? (
        <p role="status">
          If an account exists for <strong>{sentTo}</strong>, a reset link is on its way. It is
          valid for one hour.
        </p>
      ) : (
        <form onSubmit={onSubmit} className="stack">
          <p className="muted">
            Enter your email and we will send a link to choose a new password.
          </p>
          <Field label="Email" name="email" type="email" required autoComplete="email" />
          <ErrorNote error={action.error} />
          <button type="submit" className="primary wide" disabled={action.busy}>
            Send reset link
          </button>
        </form>
      )}
    </AuthCard>
  );
}

export function ResetPassword() {
  const { query } = useLocation();
  const token = query.get("token");
  const action = useAction();
  const onSubmit = submit((data) =>
    action.run(async () => {
      await unwrap(
        authClient.resetPassword({ newPassword: String(data.get("password")), token: token ?? "" }),
      );
      navigate("/sign-in", { replace: true });
    }),
  );
  if (!token || query.get("error")) {
    return (
      <AuthCard title="Link expired" footer={<Link to="/forgot-password">Request a new link</Link>}>
        <p className="error">This reset link is invalid or has expired.</p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Choose a new password">
      <form onSubmit={onSubmit} className="stack">
        <Field
          label="New password"
          name="password"
          type="password"
          required
          autoComplete="new-password"
        />
        <ErrorNote error={action.error} />
        <button type="submit" className="primary wide" disabled={action.busy}>
          Set password
        </button>
      </form>
    </AuthCard>
  );
}
