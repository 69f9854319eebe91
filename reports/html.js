(function () {
  "use strict";
  var state = "", area = "";
  var states = document.querySelectorAll(".state-filter");
  var select = document.getElementById("area-filter");
  function apply() {
    var shown = 0, rows = document.querySelectorAll("[data-state][data-area]");
    for (var i = 0; i < rows.length; i++) {
      var el = rows[i];
      if (el.tagName === "BUTTON") { continue; }
      var hide = (state !== "" && el.dataset.state !== state) || (area !== "" && el.dataset.area !== area);
      el.hidden = hide;
      if (!hide && el.classList.contains("check")) { shown++; }
    }
    for (var j = 0; j < states.length; j++) {
      states[j].classList.toggle("on", states[j].dataset.state === state);
    }
    select.value = area;
    document.getElementById("shown").textContent = shown + " shown";
  }
  for (var k = 0; k < states.length; k++) {
    states[k].addEventListener("click", function (e) { state = e.currentTarget.dataset.state; apply(); });
  }
  select.addEventListener("change", function () { area = select.value; apply(); });
  var links = document.querySelectorAll(".area-link");
  for (var m = 0; m < links.length; m++) {
    links[m].addEventListener("click", function (e) { area = e.currentTarget.dataset.area; apply(); });
  }
  apply();
})();
