// The report's "PNG" button (#board-download-png, interviews/review/report.html): the final
// diagram's SVG (the image already on the page, data-image) drawn onto a canvas at twice its
// size on white, saved as a PNG file (data-filename). #board-download-status says if it failed.
(function () {
  "use strict";
  const button = document.getElementById("board-download-png");
  if (!button) return;
  const status = document.getElementById("board-download-status");
  const say = (text) => { if (status) status.textContent = text; };
  button.addEventListener("click", () => {
    const shown = document.querySelector(button.dataset.image);
    const image = new Image();
    image.addEventListener("load", () => {
      const scale = 2;
      const width = Math.max(1, image.naturalWidth || shown.naturalWidth);
      const height = Math.max(1, image.naturalHeight || shown.naturalHeight);
      const canvas = document.createElement("canvas");
      canvas.width = width * scale;
      canvas.height = height * scale;
      const context = canvas.getContext("2d");
      context.fillStyle = "#fff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0, canvas.width, canvas.height);
      canvas.toBlob((blob) => {
        if (!blob) { say("The PNG could not be made: download the SVG instead."); return; }
        const link = document.createElement("a");
        link.href = URL.createObjectURL(blob);
        link.download = button.dataset.filename || "diagram.png";
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(link.href), 10000);
        say("");
      }, "image/png");
    });
    image.addEventListener("error", () => say("The diagram could not be loaded: try again."));
    image.src = shown.currentSrc || shown.src;
  });
})();
