"""Grading where courses grade: Gradescope, PrairieLearn and GitHub Classroom.

Thin layers over the grader: each lays out the platform's files (an autograder zip, an external
grader's image folder, a workflow) and, on the platform, reads the student's upload, runs `lab grade`
on it and renders the one result model (scanlab_grade.report) in the platform's format. common.py
holds what they share: the assignment's settings and the grading of one upload.
"""
