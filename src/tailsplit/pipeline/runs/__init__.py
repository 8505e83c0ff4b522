"""The run family's internals, behind ``tailsplit run`` / ``split`` / ``score`` and their
Python calls (:mod:`tailsplit.pipeline.split`, :mod:`tailsplit.pipeline.score`): the steps of a
run (:mod:`.steps`), loading and the scoring plan (:mod:`.loading`), the checks made before any
model loads (:mod:`.checks`), the run's result (:mod:`.result`), what a split folder holds
(:mod:`.folder`) and the console views of a run and an analysis (:mod:`.views`)."""
