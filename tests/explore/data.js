#!/usr/bin/env node
/* tests/explore/data.js: the data block of a page of `rakec --explore`
 * (the JSON in <script type="application/json" id="rake-data">), printed
 * as JSON, so a test can read a page with jq without a browser.  Exit 1
 * if the page has no such block or it is not JSON. */
"use strict";
const fs = require("fs");
const page = fs.readFileSync(process.argv[2], "utf8");
const m = /<script type="application\/json" id="rake-data">([^<]*)<\/script>/.exec(page);
if (!m) {
  process.stderr.write("data.js: " + process.argv[2] + " has no data block\n");
  process.exit(1);
}
process.stdout.write(JSON.stringify(JSON.parse(m[1])) + "\n");
