// The dashboard's one script (served from /dashboard/static, so the CSP needs no inline code): copy
// buttons, the live condition check, and live outcome pages. Every page works without it.
"use strict";

document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("[data-copy]") : null;
  if (!button) return;
  const source = document.getElementById(button.getAttribute("data-copy") || "");
  if (!source) return;
  navigator.clipboard.writeText(source.textContent || "").then(
    () => {
      button.textContent = "Copied";
      setTimeout(() => (button.textContent = "Copy"), 2000);
    },
    () => {
      // No clipboard permission (plain http): select the text so Ctrl+C copies it.
      const range = document.createRange();
      range.selectNodeContents(source);
      const selection = window.getSelection();
      if (selection) {
        selection.removeAllRanges();
        selection.addRange(range);
      }
    },
  );
});

// Condition fields: ask the server's condition module as the person types (debounced), show the
// canonical text or the parse error with its column.
for (const input of document.querySelectorAll("[data-condition-check]")) {
  const url = input.getAttribute("data-condition-check");
  const error = document.getElementById(input.id + "-error");
  const canonical = document.getElementById(input.id + "-canonical");
  let timer = 0;
  let latest = 0;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const ask = ++latest;
      const response = await fetch(
        url + (url.includes("?") ? "&" : "?") + "condition=" + encodeURIComponent(input.value),
        { headers: { accept: "application/json" } },
      );
      if (ask !== latest || !response.ok) return;
      const result = await response.json();
      if (error) error.textContent = result.ok ? "" : result.error;
      if (canonical) canonical.textContent = result.ok ? result.canonical : "";
      input.setAttribute("aria-invalid", result.ok ? "false" : "true");
    }, 150);
  });
}

// Live parts of a page: a Server-Sent Events stream sends the part's new HTML when it changes.
for (const region of document.querySelectorAll("[data-live]")) {
  const source = new EventSource(region.getAttribute("data-live"));
  source.addEventListener("update", (event) => {
    region.innerHTML = event.data;
    // The new HTML's countdowns are empty until filled: fill them now, not at the next second.
    tickCountdowns();
  });
}

// Countdowns to settles_at, ticking each second (also inside live regions replaced since).
function remaining(ms) {
  if (ms <= 0) return "due now";
  const units = [
    ["d", 86400000],
    ["h", 3600000],
    ["m", 60000],
    ["s", 1000],
  ];
  const parts = [];
  for (const [name, size] of units) {
    const n = Math.floor(ms / size);
    ms -= n * size;
    if (n > 0 || parts.length > 0) parts.push(n + name);
  }
  return "in " + parts.slice(0, 2).join(" ");
}
function tickCountdowns() {
  for (const element of document.querySelectorAll("[data-countdown]")) {
    element.textContent = "(" + remaining(Date.parse(element.getAttribute("data-countdown")) - Date.now()) + ")";
  }
}
tickCountdowns();
setInterval(tickCountdowns, 1000);
