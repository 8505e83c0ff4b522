"""BOSS's task models, beside :mod:`tailsplit.shift`: the data ``ood-rank`` and ``curve`` train
on and evaluate (:mod:`.task_data`: the ID division, the OOD sets, the cached predictions) and
each task's model behind one shape (:mod:`.heads`: a classifier, a tagger or a span reader on
the encoder, chosen by the task's ``head``)."""
