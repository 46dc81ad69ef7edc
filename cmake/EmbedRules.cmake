# The files of rules/ are compiled into the binary so that it works from any
# directory; --rules DIR (or $CACHEWISE_RULES) replaces them at run time.
# The list is explicit: a new rules file is added here on purpose.
set(CACHEWISE_RULE_FILES
  providers/anthropic.json
  providers/bedrock.json
  providers/openai.json
  providers/deepseek.json
  providers/gemini.json
  providers/vllm.json
  providers/sglang.json
  pricing.json
  tokens.json
  dynamic-fields.json
  models.json
  gpus.json)

function(cachewise_embed_rules target)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded_rules.cpp")
  set(deps "")
  foreach(f IN LISTS CACHEWISE_RULE_FILES)
    list(APPEND deps "${PROJECT_SOURCE_DIR}/rules/${f}")
  endforeach()
  string(REPLACE ";" "|" files_arg "${CACHEWISE_RULE_FILES}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} "-DRULES_DIR=${PROJECT_SOURCE_DIR}/rules" "-DFILES=${files_arg}"
            "-DOUT=${out}" -P "${PROJECT_SOURCE_DIR}/cmake/embed_rules_script.cmake"
    DEPENDS ${deps} "${PROJECT_SOURCE_DIR}/cmake/embed_rules_script.cmake"
    COMMENT "Embedding rules/ into the binary"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
