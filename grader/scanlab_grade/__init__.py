"""scanlab-grade: grades scanlab exercises, one student folder or a whole class.

For each chapter, the student's files (only those the chapter names in chapters/chapters.json)
are copied into a scratch folder outside the checkout, and the chapter's runner
(tests/grade/NN_slug_runner.cu with the student's code) is built and run in a sandbox
(sandbox.py). The chapter's checker (tests/grade/NN_slug.cu, a doctest program with no student
code in it, built once from the checkout) sends the runner its inputs, checks the outputs against
the oracle and writes the report; the points are the checker's test cases' descriptions
("points: N"). Reports are text, JSON or JUnit; a class grades into a CSV.
"""
