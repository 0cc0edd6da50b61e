// Every input, select, textarea and button without an accessible name (aria-labelledby,
// aria-label, a <label>, or a button's own text). Returns their opening HTML.
() => {
  const text = (el) => (el ? el.textContent : "").trim();
  const named = (el) => {
    if (el.type === "hidden") return true;
    const by = (el.getAttribute("aria-labelledby") || "").split(/\s+/).filter(Boolean);
    if (by.some((id) => text(document.getElementById(id)))) return true;
    if ((el.getAttribute("aria-label") || "").trim()) return true;
    if (el.labels && [...el.labels].some((l) => text(l))) return true;
    return el.tagName === "BUTTON" && text(el) !== "";
  };
  return [...document.querySelectorAll("input, select, textarea, button")]
    .filter((el) => !named(el))
    .map((el) => el.outerHTML.slice(0, 120));
}
