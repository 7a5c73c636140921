// Hover details for the dashboard's SVG charts (served from /dashboard/static, within the CSP): a box by
// the pointer with the bucket's numbers. The charts and their tables are complete without it.
"use strict";

const tip = document.createElement("div");
tip.className = "chart-tip";
tip.hidden = true;
document.body.append(tip);

function hide() {
  tip.hidden = true;
  for (const current of document.querySelectorAll("g.bucket.hover")) current.classList.remove("hover");
}

function show(bucket, event) {
  for (const current of document.querySelectorAll("g.bucket.hover"))
    if (current !== bucket) current.classList.remove("hover");
  bucket.classList.add("hover");
  // "Nov 3: Confirmed 8 · Failed 2": the label in bold, the numbers under it.
  const words = bucket.getAttribute("data-title") || "";
  const colon = words.indexOf(": ");
  const label = document.createElement("strong");
  label.textContent = words.slice(0, colon);
  const details = document.createElement("span");
  details.textContent = words.slice(colon + 2);
  tip.replaceChildren(label, details);
  tip.hidden = false;
  // CSSOM writes, not a style attribute: the CSP's style-src 'self' allows them.
  const x = Math.min(event.pageX + 14, window.scrollX + document.documentElement.clientWidth - tip.offsetWidth - 8);
  tip.style.left = x + "px";
  tip.style.top = event.pageY + 14 + "px";
}

for (const chart of document.querySelectorAll("svg.chart")) {
  // The script's box replaces the native tooltips, which would show the same words a second later.
  for (const title of chart.querySelectorAll("g.bucket > title")) {
    title.parentElement.setAttribute("data-title", title.textContent);
    title.remove();
  }
  chart.addEventListener("pointermove", (event) => {
    const bucket = event.target instanceof Element ? event.target.closest("g.bucket") : null;
    if (bucket) show(bucket, event);
    else hide();
  });
  chart.addEventListener("pointerleave", hide);
}
