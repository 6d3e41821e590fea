// voxjudge studio: keyboard shortcuts and small helpers. The pages work without this file.
(function () {
  "use strict";
  const form = document.getElementById("answer");
  if (!form) return;
  const task = form.dataset.task;
  let submitting = false;
  form.addEventListener("submit", (e) => {
    if (submitting) { e.preventDefault(); return; }  // a double press sends one answer
    submitting = true;
  });

  const audios = Array.from(document.querySelectorAll("audio"));
  // must-listen (MOS): the rating opens once the clip has played to its end; the server checks too
  audios.filter((a) => a.dataset.mustListen === "1").forEach((a) => {
    const radios = Array.from(form.querySelectorAll('input[name="score"]'));
    radios.forEach((r) => { r.disabled = true; });
    a.addEventListener("ended", () => {
      radios.forEach((r) => { r.disabled = false; });
      const note = document.getElementById("listen-note");
      if (note) note.textContent = "now rate the clip";
    });
  });
  function toggle(i) {
    const a = audios[i];
    if (!a) return;
    audios.forEach((b) => { if (b !== a) b.pause(); });
    if (a.paused) a.play(); else a.pause();
  }
  function setRadio(name, value) {
    const r = form.querySelector(`input[name="${name}"][value="${value}"]`);
    if (r) { r.checked = true; r.dispatchEvent(new Event("change", { bubbles: true })); }
  }

  // pairwise: one row at a time, keys 1/2/3 answer it and move down
  const rows = Array.from(document.querySelectorAll("#dims tr[data-dim]"));
  let row = Math.max(0, rows.findIndex((r) => !r.querySelector("input:checked")));
  function showRow() { rows.forEach((r, i) => r.classList.toggle("current", i === row)); }
  if (rows.length) {
    showRow();
    rows.forEach((r, i) => r.addEventListener("click", () => { row = i; showRow(); }));
  }

  // rank: ordered picks kept in the hidden "top" field
  const top = document.getElementById("top");
  const picks = top && top.value ? top.value.split(",").filter((x) => x !== "").map(Number) : [];
  function showPicks() {
    if (!top) return;
    top.value = picks.join(",");
    document.querySelectorAll("#cands li").forEach((li) => {
      const k = picks.indexOf(Number(li.dataset.pos));
      li.querySelector(".rank").textContent = k < 0 ? "" : ["1st", "2nd", "3rd"][k] || "";
      li.classList.toggle("picked", k >= 0);
    });
  }
  function pick(pos) {
    const k = picks.indexOf(pos);
    if (k >= 0) picks.splice(k, 1); else if (picks.length < Math.min(3, audios.length)) picks.push(pos);
    showPicks();
  }
  document.querySelectorAll("button.pick").forEach((b) => b.addEventListener("click", () => pick(Number(b.dataset.pos))));
  showPicks();

  const flag = document.getElementById("flag");
  const note = document.getElementById("note");

  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target;
    const typing = t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && (t.type === "text" || t.type === "number")));
    if (e.key === "Enter") {
      if (t && t.tagName === "BUTTON") return;  // the button's own action
      e.preventDefault();
      if (typing && t.type === "text") t.blur();
      form.requestSubmit(document.getElementById("save"));
      return;
    }
    if (typing) { if (e.key === "Escape") t.blur(); return; }
    const digit = e.code && e.code.startsWith("Digit") ? Number(e.code.slice(5)) : null;
    if (e.shiftKey && digit) { e.preventDefault(); toggle(digit - 1); return; }
    const key = e.key.toLowerCase();
    if (key === "s") { e.preventDefault(); form.requestSubmit(document.getElementById("skip")); return; }
    if (key === "f") { e.preventDefault(); flag.checked = !flag.checked; if (flag.checked) note.focus(); return; }
    if (e.key === "ArrowLeft") { const a = document.getElementById("prev"); if (a) location.href = a.href; return; }
    if (e.key === "ArrowRight") { const a = document.getElementById("next"); if (a) location.href = a.href; return; }
    if ((task === "breaks" || task === "mos") && digit >= 1 && digit <= 5) {
      const r = form.querySelector(`input[name="score"][value="${digit}"]`);
      if (r && !r.disabled) setRadio("score", digit);
    }
    else if (task === "asr-pairs" && digit !== null) {
      const opts = form.querySelectorAll('input[name="error_type"]');
      if (digit === 0) setRadio("error_type", "none"); else if (opts[digit - 1]) opts[digit - 1].checked = true;
    } else if (task === "asr-sentence" && ["m", "n", "p"].includes(key)) {
      const input = document.querySelector(`input[data-key="${key}"]`);
      input.value = Math.max(0, Number(input.value || 0) + (e.shiftKey ? -1 : 1));
    } else if (task === "pairwise" && rows.length) {
      if (e.key === "ArrowDown") { row = Math.min(rows.length - 1, row + 1); showRow(); e.preventDefault(); }
      else if (e.key === "ArrowUp") { row = Math.max(0, row - 1); showRow(); e.preventDefault(); }
      else if (digit >= 1 && digit <= 3) {
        setRadio(rows[row].dataset.dim, ["first", "second", "tie"][digit - 1]);
        row = Math.min(rows.length - 1, row + 1); showRow();
      }
    } else if (task === "rank") {
      if (digit >= 1 && digit <= audios.length) pick(digit - 1);
      else if (e.key === "Backspace") { picks.pop(); showPicks(); e.preventDefault(); }
    }
  });
})();
