(function () {
  "use strict";
  // The grid is built here from the embedded JSON (docs/access.md, "The JSON in the page"):
  // one hex digit per cell keeps 125,000 cells near 125 KB, where markup for each would
  // weigh megabytes. Names are escaped before they enter any HTML.
  var data = JSON.parse(document.getElementById("guild-data").textContent);
  var cols = data.columns, rows = data.rows, cells = data.cells, before = data.before || null;
  var wrap = document.getElementById("wrap");
  var form = document.getElementById("filters");
  var fRole = document.getElementById("f-role"), fPerson = document.getElementById("f-person");
  var fChannel = document.getElementById("f-channel"), fChanged = document.getElementById("f-changed");

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }
  function letters(c) {
    if (c & 8) return "A";
    var s = (c & 1 ? "V" : "") + (c & 2 ? "S" : "") + (c & 4 ? "M" : "");
    return s || "\u00b7";
  }
  function level(c) {
    return c & 8 ? "a" : c & 4 ? "m" : c & 2 ? "s" : c & 1 ? "v" : "n";
  }
  var WORDS = ["view", "send", "manage", "administrator"];
  function said(c) {
    var out = [];
    for (var b = 0; b < 4; b++) if (c & (1 << b)) out.push(WORDS[b]);
    return out.length ? out.join(", ") : "nothing";
  }
  function code(row, col, from) {
    return parseInt(from[row].charAt(col), 16);
  }
  function changed(r, c) {
    return before !== null && before[r].charAt(c) !== cells[r].charAt(c);
  }

  // The filters, as the URL fragment keeps them: #role=Moderator&person=alice&channel=staff&changed=1
  function readHash() {
    var f = { role: "", person: "", channel: "", changed: false };
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var at = part.indexOf("=");
      if (at < 1) return;
      var key = part.slice(0, at), value;
      try { value = decodeURIComponent(part.slice(at + 1).replace(/\+/g, " ")); } catch (e) { return; }
      if (key === "changed") f.changed = value === "1";
      else if (key in f) f[key] = value;
    });
    return f;
  }
  function writeHash(f) {
    var parts = [];
    ["role", "person", "channel"].forEach(function (k) {
      if (f[k]) parts.push(k + "=" + encodeURIComponent(f[k]));
    });
    if (f.changed) parts.push("changed=1");
    var hash = parts.length ? "#" + parts.join("&") : "";
    if (hash === location.hash) return;
    try { history.replaceState(null, "", hash || location.pathname + location.search); }
    catch (e) { location.hash = hash; }
  }

  function personMatches(col, wanted) {
    var w = wanted.toLowerCase(), n = col.name.toLowerCase();
    return n === w || col.id === wanted || n.indexOf(w.replace(/^@/, "") + " (") === 0;
  }
  function visibleColumns(f) {
    var out = [];
    for (var c = 0; c < cols.length; c++) {
      var col = cols[c];
      if (f.role || f.person) {
        var byRole = f.role && col.kind !== "person" && col.name === f.role;
        var byPerson = f.person && col.kind === "person" && personMatches(col, f.person);
        if (!byRole && !byPerson) continue;
      }
      out.push(c);
    }
    if (f.changed && before !== null) {
      out = out.filter(function (c) {
        for (var r = 0; r < rows.length; r++) if (changed(r, c)) return true;
        return false;
      });
    }
    return out;
  }
  function visibleRows(f, shownCols) {
    var text = f.channel.toLowerCase(), out = [];
    for (var r = 0; r < rows.length; r++) {
      if (text && rows[r].path.toLowerCase().indexOf(text) < 0) continue;
      if (f.changed && before !== null) {
        var any = false;
        for (var k = 0; k < shownCols.length && !any; k++) any = changed(r, shownCols[k]);
        if (!any) continue;
      }
      out.push(r);
    }
    return out;
  }
  function tag(p) {
    return p ? ' <span class="tag">' + p + "</span>" : "";
  }

  // The rows in parts: the channels outside categories, then each category with its
  // channels. Each part is a table of its own in a box the browser lays out only when it
  // comes near the screen (content-visibility): one table of 125,000 cells took Chromium
  // 1.4 s to lay out, the parts take a fifth of that (docs/performance.md).
  function parts(shownRows) {
    var out = [], current = null;
    for (var i = 0; i < shownRows.length; i++) {
      var r = shownRows[i], top = rows[r].category === undefined;
      if (current === null || (top && (rows[r].kind === "category" || current.category))) {
        current = { category: rows[r].kind === "category", title: top && rows[r].kind === "category" ? rows[r].name : "", rows: [] };
        out.push(current);
      }
      current.rows.push(r);
    }
    return out;
  }
  function headRow(shownCols) {
    var h = ['<tr><th scope="col" class="chan">Channel</th>'];
    for (var k = 0; k < shownCols.length; k++) {
      var col = cols[shownCols[k]];
      var title = col.kind === "person" ? col.name + (col.roles ? " \u2014 holds " + col.roles.join(", ") : " \u2014 holds no role") : col.name;
      h.push('<th scope="col" class="who ' + col.kind + (col.presence === "gone" ? " gone" : "") +
        '" data-col="' + shownCols[k] + '" title="' + esc(title) + '">' + esc(col.name) + tag(col.presence) + "</th>");
    }
    h.push("</tr>");
    return h.join("");
  }
  function bodyRows(rowList, shownCols, b) {
    for (var i = 0; i < rowList.length; i++) {
      var r = rowList[i], row = rows[r], cat = row.kind === "category";
      b.push('<tr data-row="' + r + '"' + (cat ? ' class="cat"' : "") + '><th scope="row"' +
        (row.category !== undefined ? ' class="in' : ' class="') + (row.presence === "gone" ? ' gone"' : '"') +
        ' title="' + esc(row.path + " (" + row.kind + ")") + '">' + esc(row.name) + tag(row.presence) + "</th>");
      var line = cells[r];
      for (var j = 0; j < shownCols.length; j++) {
        var c = shownCols[j], now = parseInt(line.charAt(c), 16);
        if (before !== null && before[r].charAt(c) !== line.charAt(c)) {
          var was = code(r, c, before), gained = now & ~was, lost = was & ~now;
          var mark = gained && lost ? ["x", "\u00b1"] : gained ? ["g", "+"] : ["l", "\u2212"];
          b.push('<td class="' + level(now) + " " + mark[0] + '" title="was ' + said(was) + "; now " + said(now) +
            '">' + mark[1] + letters(now) + "</td>");
        } else {
          b.push('<td class="' + level(now) + '">' + letters(now) + "</td>");
        }
      }
      b.push("</tr>");
    }
  }

  function render() {
    var f = readHash();
    fRole.value = f.role; fPerson.value = f.person; fChannel.value = f.channel; fChanged.checked = f.changed;
    var shownCols = visibleColumns(f), shownRows = visibleRows(f, shownCols);
    var caption = "Access in " + data.guild.name + (data.state === "live" ? " today" : " once the plan is applied") +
      ": channels (rows) \u00d7 who (columns). V view, S send or join, M manage, A administrator" +
      (before !== null ? "; + gains, \u2212 loses, \u00b1 both with the plan" : "") + ".";
    var head = headRow(shownCols), colgroup = '<colgroup><col class="chan"><col span="' + Math.max(shownCols.length, 1) + '" class="cell"></colgroup>';
    var b = ['<p id="cap">' + esc(caption) + "</p>",
      '<div id="heads" aria-hidden="true"><table class="g">' + colgroup + "<thead>" + head + "</thead></table></div>"];
    var split = parts(shownRows);
    for (var p = 0; p < split.length; p++) {
      b.push('<div class="part"><table class="g">' + colgroup + "<caption>" + esc(caption) +
        (split[p].title ? " \u2014 " + esc(split[p].title) : "") + '</caption><thead class="quiet">' + head + "</thead><tbody>");
      bodyRows(split[p].rows, shownCols, b);
      b.push("</tbody></table></div>");
    }
    wrap.innerHTML = b.join("");
    // Fixed layout needs the width; CSSOM styles are not inline styles for the CSP.
    var width = (15 + shownCols.length * 2.4) + "rem";
    var tables = wrap.getElementsByTagName("table");
    for (var t = 0; t < tables.length; t++) tables[t].style.width = width;
    var boxes = wrap.getElementsByClassName("part");
    for (var k = 0; k < boxes.length; k++) boxes[k].style.containIntrinsicSize = "auto " + (split[k].rows.length * 20 + 4) + "px";
    document.getElementById("shown").textContent =
      "Showing " + shownRows.length + " of " + rows.length + " channels and " + shownCols.length + " of " + cols.length + " columns.";
    // Layout now, so the time written below includes it.
    void wrap.offsetHeight;
    document.documentElement.setAttribute("data-render-ms", performance.now().toFixed(1));
  }

  function options(select, kind) {
    var seen = {};
    for (var c = 0; c < cols.length; c++) {
      var col = cols[c];
      if ((kind === "person") !== (col.kind === "person") || seen[col.name]) continue;
      seen[col.name] = true;
      var o = document.createElement("option");
      o.value = col.name; o.textContent = col.name;
      select.appendChild(o);
    }
  }
  options(fRole, "role");
  options(fPerson, "person");

  function fromForm() {
    writeHash({ role: fRole.value, person: fPerson.value, channel: fChannel.value.trim(), changed: fChanged.checked });
    render();
  }
  fRole.addEventListener("change", fromForm);
  fPerson.addEventListener("change", fromForm);
  fChanged.addEventListener("change", fromForm);
  var typing = 0;
  fChannel.addEventListener("input", function () { clearTimeout(typing); typing = setTimeout(fromForm, 150); });
  form.addEventListener("submit", function (e) { e.preventDefault(); fromForm(); });
  document.getElementById("f-clear").addEventListener("click", function () {
    writeHash({ role: "", person: "", channel: "", changed: false });
    render();
  });
  window.addEventListener("hashchange", render);
  render();
})();
