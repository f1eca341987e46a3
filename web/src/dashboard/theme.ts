// Light, dark, or the system's choice (prefers-color-scheme), remembered in localStorage and applied
// as data-theme on <html>, which the stylesheet reads.
import { useState } from "react";

export type ThemeChoice = "light" | "dark" | "system";
const KEY = "till-theme";

export function storedTheme(): ThemeChoice {
  const v = localStorage.getItem(KEY);
  return v === "light" || v === "dark" ? v : "system";
}

export function applyTheme(choice: ThemeChoice): void {
  if (choice === "system") document.documentElement.removeAttribute("data-theme");
  else document.documentElement.dataset.theme = choice;
}

export function useTheme(): [ThemeChoice, () => void] {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme);
  const cycle = () => {
    const next: ThemeChoice = choice === "system" ? "dark" : choice === "dark" ? "light" : "system";
    if (next === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, next);
    applyTheme(next);
    setChoice(next);
  };
  return [choice, cycle];
}
