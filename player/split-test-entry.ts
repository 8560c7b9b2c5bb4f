/**
 * A split test's own snippet script (served at `/cdn/s/<test code>.js`, built by
 * compiler/index.ts `publishSplitTest` with the test baked in as `__FL_SPLIT_TEST__`):
 * plays the variation this device is served in the test's
 * `<div class="frameline-player" data-split-test="<test code>">`.
 */
import { serveSplitTest } from "./split-test.ts";
import { scriptUrl } from "./locate.ts";

if (__FL_SPLIT_TEST__) serveSplitTest(__FL_SPLIT_TEST__, scriptUrl());
