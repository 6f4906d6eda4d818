# The slowest tests and how long each took (seconds: the sanitized suite of the CI-like run of
# b6cf8a5, ctest -j8 on a 2-core machine), read by ctest after the tests doctest discovered: a
# test with a COST starts before the others, the longest first, so that the few long ones (most
# of them wait on worker timeouts, not on the CPU) do not start last and leave the suite waiting
# on them. A clean clone (CI) has no Testing/Temporary/CTestCostData.txt, where ctest keeps what
# each test took last time, so without this list the long tests start in the order they were
# defined. ctest ignores a name it does not know; tests/test_costs_test.cpp checks every name.
set(tilevolve_test_costs
  179 [==[protocols script: --first-split moves the split studies, not the fixed pairs]==]
  165 [==[measured_run: every worker fault leaves the run's result unchanged and is counted]==]
  164 [==[measured_faults: 1%, 5% and 10% random worker faults on one device never change the run]==]
  144 [==[protocols script: every listed command is one the tool accepts]==]
  127 [==[mock_llm: refits on many training shapes may have more leaves, one per 80 shapes]==]
  120 [==[measured_faults: 1%, 5% and 10% random worker faults on two devices never change the run]==]
  120 [==[measured_faults: a poison config is found, recorded as crash and never sent again]==]
  105 [==[measured_faults: 1%, 5% and 10% random worker faults on four devices never change the run]==]
  73 [==[measured_run: analytic probes, and a full table measured first]==]
  69 [==[device view: the API gives a measured run's devices and poison pairs]==]
  67 [==[measured_faults: a faulty run killed with SIGKILL resumes to the fault-free result]==]
  65 [==[slurm: fake workers through srun on a one-node cluster: devices, a measured run, a fault]==]
  55 [==[measured_faults: a poison config in the expert is reported, and the run goes on]==]
  54 [==[measured_run: the run writes its cache, replay repeats it, a second run measures nothing]==]
  51 [==[measured_run: a measured run killed with SIGKILL resumes to the same result]==]
  51 [==[measure-tables script: three shape sets into one table, a deadline, and a rerun that measures nothing new]==]
  41 [==[shape sets: seven_models_tp.csv is the presets' sharded GEMMs, each size once]==]
  32 [==[device_pool: a poison config is found after three faults alone, on two devices, and once it is poison on two shapes, one fault is enough on the others]==]
  32 [==[split_study: --stagnation and --rule-penalty reach every run]==]
  30 [==[split_study: a split of a study is the run of that split seed, racing included]==]
  30 [==[measured_faults: --poison-strikes and --worker-max-faults reach the pool, and the events say what happened to each device]==]
  25 [==[protocols script: one protocol end to end, its figures the binary's]==]
  24 [==[llm cli: budgets stop a run cleanly, and bad LLM flags exit 2 with a message]==])
list(LENGTH tilevolve_test_costs tilevolve_n)
math(EXPR tilevolve_last "${tilevolve_n} - 1")
foreach(i RANGE 0 ${tilevolve_last} 2)
  math(EXPR j "${i} + 1")
  list(GET tilevolve_test_costs ${i} cost)
  list(GET tilevolve_test_costs ${j} name)
  set_tests_properties("${name}" PROPERTIES COST ${cost})
endforeach()
