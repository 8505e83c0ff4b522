// tailsplit's explorer: DataTables (the bundle itables ships, embedded in the page) over the
// rows embedded as JSON. Only the configuration, the filters and the token shading are here:
// paging, search and sorting are the table library's. Every text goes in as text, never HTML.
(async () => {
  const spec = JSON.parse(document.getElementById("explorer-spec").textContent);
  const rows = JSON.parse(document.getElementById("explorer-rows").textContent);
  const bundle = document.getElementById("explorer-bundle").textContent;
  const url = URL.createObjectURL(new Blob([atob(bundle)], { type: "text/javascript" }));
  const DataTable = (await import(url)).default;
  URL.revokeObjectURL(url);

  // A token's shade: log-probability in centinats, clipped at SCALE nats, two decimals of alpha.
  const alpha = (centinats) => Math.round(Math.min(Math.max(-centinats, 0), spec.scale * 100) / spec.scale) / 100;
  const tokenSpans = (cell) => {
    const [text, pieces, centinats] = cell;
    const box = document.createElement("span");
    let at = 0;
    pieces.forEach((piece, i) => {
      const span = document.createElement("span");
      span.className = "tok";
      span.textContent = typeof piece === "number" ? text.slice(at, (at += piece)) : piece;
      span.dataset.logprob = (centinats[i] / 100).toFixed(2);
      span.title = `log p = ${(centinats[i] / 100).toFixed(2)}`;
      span.style.backgroundColor = `rgba(${spec.colour}, ${alpha(centinats[i])})`;
      box.appendChild(span);
    });
    return box.outerHTML;
  };
  const columns = spec.columns.map((column, index) => {
    // types declared, not detected: detection reads every row (a second at 570,000 rows); no
    // title: the table library writes a given title as HTML, so it reads the page's escaped <th>
    const declared = { name: column.key, data: index, type: "string" };
    if (column.kind === "number") return { ...declared, type: "num", className: "dt-right" };
    if (column.kind === "tokens") {
      // shaded tokens on display; the text escaped for display and search (DataTables decodes a
      // search string with an ampersand through innerHTML), as it is for sorting
      const escaped = DataTable.render.text().display;
      const shown = (cell, type) => (cell.length === 3 && type === "display" ? tokenSpans(cell) : escaped(cell[0]));
      const render = (cell, type) => (type === "display" || type === "filter" ? shown(cell, type) : cell[0]);
      return { ...declared, className: "tokens", render };
    }
    return { ...declared, className: column.key, render: DataTable.render.text() };
  });

  const table = new DataTable("#explorer", {
    data: rows,
    columns,
    deferRender: true,
    autoWidth: false, // measuring every row's widest cell renders them all: 42 s of 44 at 570,000 rows
    order: spec.order,
    pageLength: 25,
    searchDelay: rows.length > 50000 ? 400 : 0,
    layout: { topStart: "pageLength", topEnd: "search", bottomStart: "info", bottomEnd: "paging" },
  });

  // One exact-match filter per category column (part, label, correct ...), by its index.
  const escape = (value) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  document.querySelectorAll("select[data-column]").forEach((select) => {
    select.addEventListener("change", () => {
      const value = select.value;
      table.column(Number(select.dataset.index)).search(value ? `^${escape(value)}$` : "", { regex: true, smart: false });
      table.draw();
    });
  });
  document.querySelectorAll("button[data-tail]").forEach((button) => {
    button.addEventListener("click", () => {
      const select = document.querySelector(`select[data-column="${spec.label_key}"]`);
      select.value = button.dataset.tail;
      select.dispatchEvent(new Event("change"));
      table.order([spec.order[0]]).draw();
    });
  });
  window.explorerReady = performance.now();
})();
